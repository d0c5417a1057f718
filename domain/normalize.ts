/** Canonical forms used for duplicate detection and lookups. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The `00` international prefix at the start: it stands for `+`, so its two zeros are not part of the number. */
const INTERNATIONAL_PREFIX = /^\s*00/;
/**
 * A `(0)` right after the country code (1-3 digits, after an optional `+` or `00`): the trunk digit
 * dialled only from inside the country, as in `+44 (0)20 7946 0958`. Anywhere else it is kept.
 */
const TRUNK_ZERO = /^(\s*(?:\+|00)?[\s./-]*\d{1,3}[\s./-]*)\(0\)/;

/**
 * Digits only, keeping the country code; "+1 (555) 010-2030" and "15550102030" match, and so do
 * "+44 20 7946 0958", "+44 (0)20 7946 0958" and "0044 20 7946 0958" (docs/decisions.md, "Phone
 * numbers"). Nothing else is guessed: no `011` or other exit code, no national formats.
 * The same rule is written in SQL by migration 1795990000000-RenormalizeInternationalPhones.
 */
export function normalizePhone(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const digits = (phone.includes('(0)') ? phone.replace(TRUNK_ZERO, '$1') : phone).replace(/\D/g, '');
  const number = INTERNATIONAL_PREFIX.test(phone) ? digits.slice(2) : digits;
  return number.length >= 5 ? number : null;
}
