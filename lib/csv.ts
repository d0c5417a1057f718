/** One CSV field (RFC 4180): quoted when it holds a quote, a comma, a line break, or space at an edge. */
export function csvField(v: unknown): string {
  const text = String(v ?? '');
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV line of fields, ended as RFC 4180 ends one. */
export const csvLine = (fields: readonly unknown[]): string => fields.map(csvField).join(',') + '\r\n';

/** What a spreadsheet would run as a formula: =, @, a tab or CR first, or + or - before anything but a number. */
const FORMULA_START = String.raw`(?:[=@\t\r]|[+-](?![\d\s().-]*$))`;
const FORMULA = new RegExp(`^${FORMULA_START}`);
/** The same, behind the `'` that spreadsheetText put there. */
const GUARDED = new RegExp(`^'${FORMULA_START}`);

/**
 * A value written so a spreadsheet shows it as text and never runs it (CSV injection, OWASP): one
 * that would start a formula gets a leading `'`, which spreadsheets take as "text follows". A
 * phone number (`+44 20 7946 0018`) or a negative number is left alone. Leads come from public
 * forms, so a name such as `=HYPERLINK(...)` is anyone's to write.
 */
export function spreadsheetText(v: unknown): unknown {
  return typeof v === 'string' && FORMULA.test(v) ? `'${v}` : v;
}

/** A cell as written before spreadsheetText guarded it: the import reads our own files back as they were. */
export function unguardedText(v: unknown): unknown {
  return typeof v === 'string' && GUARDED.test(v) ? v.slice(1) : v;
}
