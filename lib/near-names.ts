/**
 * Whether a name someone typed is probably another one misspelled, for the hints of a 404 (a
 * route's words) and of an unknown field.
 */

/** `opportunity` for `opportunities`, `lead` for `leads` (the latter is one letter apart as well). */
export const singular = (word: string) => word.replace(/ies$/, 'y').replace(/s$/, '');

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
 * A date, time or range end named by its kind (`dueDate`, `due_at`, `createdOn`; `createdFrom`,
 * `dueTo`): the kind's word is a word of its own, so `format` is no time.
 */
const KIND_SUFFIX = /(?<=[a-z0-9])(?:([A-Z][a-z]+)|[_-]([a-z]+))$/;
const TIME_WORDS = new Set(['date', 'time', 'at', 'on']);
const RANGE_ENDS = new Map<string, 'from' | 'to'>(
  Object.entries({ from: 'from', after: 'from', since: 'from', to: 'to', before: 'to', until: 'to' } as const),
);

function timeStem(name: string): { stem: string; end?: 'from' | 'to' } | null {
  const match = KIND_SUFFIX.exec(name);
  const word = (match?.[1] ?? match?.[2])?.toLowerCase();
  if (!match || !word || !(TIME_WORDS.has(word) || RANGE_ENDS.has(word))) return null;
  return { stem: folded(name.slice(0, match.index)), end: RANGE_ENDS.get(word) };
}

/**
 * The names that hold the same moment as `unknown` under another suffix: `dueAt` for `dueDate`,
 * and a range's both ends (`createdFrom`, `createdTo`) for `created_at`. A name with a range
 * suffix counts only beside its other end, so `assignedTo` is no time of `assigned_at`.
 */
function sameTime(unknown: string, names: readonly string[]): string[] {
  const stem = timeStem(unknown)?.stem;
  if (!stem || stem.length < 3) return [];
  const stems = names.map((n) => ({ n, ...timeStem(n) })).filter((s) => s.stem === stem);
  return stems.filter((s) => !s.end || stems.some((o) => o.end && o.end !== s.end)).map((s) => s.n);
}

/**
 * Other APIs' names for the page size, which every list here calls `limit`: by the rules below,
 * `pageSize` would read as `page` and a word more.
 */
const PAGE_SIZE_NAMES = new Set(['pagesize', 'perpage', 'size', 'maxresults']);

/** At most this many names are offered together (`firstName or lastName`); more is no hint. */
const MAX_MEANT = 2;

/**
 * The names (a field, a query parameter, an enum's value) an unknown one probably meant, best
 * rule first, and none where more than two are (a page size by another API's name is `limit`):
 * 1. spelled alike once case, `_` and `-` are left aside (`first_name`, `fristName`, `EMAIL_OPEN`);
 * 2. the same date or time by another suffix (`dueDate`, `due_date` for `dueAt`; `created_at`
 *    for `createdFrom or createdTo`);
 * 3. from four letters on, its beginning (`stage` for `stageId`), its end (`open` for
 *    `email_open`, `name` for `firstName` or `lastName`), or the name and a word more
 *    (`phoneNumber`, `emailAddress` for `phone`, `email`).
 */
export function meantNames(unknown: string, names: readonly string[]): string[] {
  const key = folded(unknown);
  if (PAGE_SIZE_NAMES.has(key) && names.includes('limit')) return ['limit'];
  const few = (near: readonly string[]) => (near.length <= MAX_MEANT ? [...near] : []);
  const spelledAlike = names.filter((n) => alike(key, folded(n)));
  if (spelledAlike.length || key.length < 4) return few(spelledAlike);
  const sameMoment = sameTime(unknown, names);
  if (sameMoment.length) return few(sameMoment);
  return few(
    names.filter((n) => {
      const name = folded(n);
      return name.startsWith(key) || name.endsWith(key) || (name.length >= 4 && key.startsWith(name));
    }),
  );
}

/** The one name an unknown one probably meant (meantNames), or null. */
export function meantName(unknown: string, names: readonly string[]): string | null {
  const near = meantNames(unknown, names);
  return near.length === 1 ? near[0] : null;
}

/** `did you mean a?`, `did you mean a or b?` (each name shown by `show`), or null for none. */
export function didYouMean(unknown: string, names: readonly string[], show = (name: string) => name): string | null {
  const near = meantNames(unknown, names);
  return near.length ? `did you mean ${near.map(show).join(' or ')}?` : null;
}
