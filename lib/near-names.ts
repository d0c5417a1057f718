/**
 * Whether a name someone typed is probably another one misspelled, for the hints of a 404 (a
 * route's words) and of an unknown field.
 */

/** `opportunity` for `opportunities`, `lead` for `leads` (the latter is one letter apart as well). */
const singular = (word: string) => word.replace(/ies$/, 'y').replace(/s$/, '');

/**
 * Equal, one the other's plural, or (in words of four letters or more) one insertion, deletion,
 * substitution or swap of neighbours apart: `campains`, `fristName`.
 */
export function alike(a: string, b: string): boolean {
  if (a === b || singular(a) === singular(b)) return true;
  if (Math.min(a.length, b.length) < 4 || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const swapped = a.length === b.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  // After the first difference the rest must agree once one character is skipped on one side or both.
  return swapped || a.slice(i + 1) === b.slice(i + 1) || a.slice(i) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i);
}

/** A name without case, `_` or `-`: `first_name` and `FirstName` as `firstname`. */
const folded = (name: string) => name.toLowerCase().replace(/[_-]/g, '');

/**
 * The name (a field, a query parameter, an enum's value) an unknown one probably meant: spelled
 * alike once case, `_` and `-` are left aside (`first_name`, `fristName`, `EMAIL_OPEN`), else,
 * from four letters on, its beginning (`stage` for `stageId`) or its end (`open` for
 * `email_open`). Null when none or several are.
 */
export function meantName(unknown: string, names: readonly string[]): string | null {
  const key = folded(unknown);
  const one = (near: readonly string[]) => (near.length === 1 ? near[0] : null);
  const spelledAlike = names.filter((n) => alike(key, folded(n)));
  if (spelledAlike.length || key.length < 4) return one(spelledAlike);
  return one(names.filter((n) => folded(n).startsWith(key) || folded(n).endsWith(key)));
}
