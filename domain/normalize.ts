/** Canonical forms used for duplicate detection and lookups. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Digits only, keeping the country code; "+1 (555) 010-2030" and "15550102030" match. */
export function normalizePhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 5 ? digits : null;
}
