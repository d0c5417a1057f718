import { z } from 'zod';
import { decodeId, ID_TYPES, type IdType } from '../lib/ids';
import { meantName } from '../lib/near-names';

const LABELS: Partial<Record<IdType, string>> = {
  apiKey: 'API key',
  auditLog: 'Audit log entry',
  dkimKey: 'DKIM key',
};
/** `Lead`, `Landing page` (each word of a camelCase type after the first in lower case). */
const idLabel = (type: IdType) =>
  LABELS[type] ?? type.charAt(0).toUpperCase() + type.slice(1).replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
export const withArticle = (label: string) => `${/^[AEIOU]/.test(label) ? 'an' : 'a'} ${label}`;

/** The type whose tag an ID that is not of `type` has (a campaign's ID where a lead's is wanted), if any. */
function otherIdType(type: IdType, value: unknown): IdType | undefined {
  if (typeof value !== 'string') return undefined;
  return (Object.keys(ID_TYPES) as IdType[]).find((other) => other !== type && idPattern(other).test(value));
}

/**
 * The shape every ID of one of `types` has (its tag, then 13-14 letters and digits), stated in the
 * document as `pattern`.
 */
function idPattern(...types: IdType[]): RegExp {
  const tags = types.map((t) => ID_TYPES[t]);
  return new RegExp(`^${tags.length === 1 ? tags[0] : `(${tags.join('|')})`}[A-Za-z0-9]{13,14}$`);
}

/**
 * An encoded ID in a request, decoded to the database key. In a path a failure is a 404 (the
 * route wrapper turns the issue into "<Type> not found"); in a body or query it is a field error.
 */
export function encodedId(type: IdType) {
  return z
    .string()
    .regex(idPattern(type), {
      error: (issue) => {
        const other = otherIdType(type, issue.input);
        return `Must be a valid ${idLabel(type)} ID${other ? `, not ${withArticle(idLabel(other))} ID` : ''}`;
      },
    })
    .transform((value, ctx) => {
      const decoded = decodeId(type, value);
      if (decoded === null) {
        ctx.addIssue({ code: 'custom', message: `Must be a valid ${idLabel(type)} ID` });
        return z.NEVER;
      }
      return decoded;
    })
    .meta({ description: `${idLabel(type)} ID (opaque, 16-17 alphanumeric characters)`, 'x-id-type': type });
}

/**
 * An ID of any of `types`, for a filter whose kind another query parameter names: the document can
 * state the shape (a query's parameters are drawn independently, so "of the kind entityType names"
 * is for the description), and an ID of another kind, or one that names nothing, matches nothing.
 */
export function idOfAnyType(types: readonly IdType[]) {
  const labels = types.map((t) => idLabel(t).toLowerCase());
  return z.string().regex(idPattern(...types), `Must be the ID of a ${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}`);
}

/**
 * "`idKey` is an ID of the kind `typeKey` names" as JSON Schema, for a body whose record is one of
 * several types (zod checks it in a refinement, which the document does not show): one branch per
 * type, its ID marked like any other. `optional`: the pair may also be left out entirely.
 */
export function typedIdPair(typeKey: string, idKey: string, types: readonly IdType[], opts: { optional?: boolean } = {}) {
  const branches = types.map((type) => ({
    required: [typeKey, idKey],
    properties: {
      [typeKey]: { const: type },
      [idKey]: { type: 'string', pattern: idPattern(type).source, 'x-id-type': type },
    },
  }));
  // A `false` property schema: the property must be absent (no `not`, which schemathesis cannot cover beside binary parts).
  const neither = { properties: { [typeKey]: false, [idKey]: false } };
  return { anyOf: opts.optional ? [neither, ...branches] : branches };
}

/**
 * Text that must not be blank: trimmed, then 1 to `max` characters. The document states the
 * "not only whitespace" part as a pattern (a character that is neither whitespace nor the BOM,
 * which JavaScript's trim also removes), so a whitespace-only value is invalid there as well.
 */
export const nonBlank = (max: number) => z.string().trim().min(1, 'Must not be blank').max(max).meta({ pattern: '[^\\s\\uFEFF]' });

/**
 * Items of an array whose `keys` must differ from item to item (JSON Schema's uniqueItems compares
 * whole items only): named in `x-unique-by` beside a description, for clients and for the fuzzer's
 * copy of the document (test/support/schemathesis.ts), which honours it with at most one item.
 */
export const uniqueBy = (...keys: string[]) => ({ 'x-unique-by': keys });

/**
 * A value that must name something the tenant has: a lead status code, an approved partner's
 * referral code or ID, a contact's address. JSON Schema cannot list which values exist, so the document
 * names the kind in `x-references` beside a description of the 422; tools that fill such fields
 * (the reliability suite's fuzzer) take the value from a record, as they do for `x-id-type`.
 */
type ReferenceKind = 'leadStatus' | 'referralCode' | 'contactEmail' | 'approvedPartner' | 'changeCursor';
export const references = (kind: ReferenceKind) => ({ 'x-references': kind });

/**
 * What PostgreSQL can store: ISO 8601 allows year 0000 and any UTC offset, timestamptz and date
 * take years from 0001 and offsets within ±15:59 (beyond, the query fails: a 500, not a 4xx).
 */
const yearFromOne = (v: string) => !v.startsWith('0000');
const offsetWithinRange = (v: string) => !/[+-](1[6-9]|[2-9]\d):?\d\d$/.test(v);
/**
 * zod's own pattern for the format, narrowed to what the refinements allow, so the document states
 * the rule too: no year 0000 (in either of its branches, leap day or not), offsets up to ±15:59.
 */
const storablePattern = (schema: z.ZodType, replacements: [string, string][]) =>
  replacements.reduce(
    (pattern, [from, to]) => {
      if (!pattern.includes(from)) throw new Error(`zod's date pattern changed: ${from} not in ${pattern}`);
      return pattern.replace(from, to);
    },
    (z.toJSONSchema(schema) as { pattern: string }).pattern,
  );
const NO_YEAR_ZERO: [string, string] = ['[02468][048]00', '(?:[2468][048]|0[48])00'];
const YEAR_FOUR_DIGITS: [string, string] = ['|\\d{4}-', '|(?:000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})-'];
const OFFSET_TO_15_59: [string, string] = ['[+-](?:[01]\\d|2[0-3]):[0-5]\\d', '[+-](?:0\\d|1[0-5]):[0-5]\\d'];
/** A date and time PostgreSQL can store, `error` the words for a value that is none. */
function storableDateTime(error: string) {
  const datetime = z.iso.datetime({ offset: true, error });
  return datetime
    .refine(yearFromOne, 'Year must be 0001 or later')
    .refine(offsetWithinRange, 'UTC offset must be within ±15:59')
    .meta({ pattern: storablePattern(datetime, [NO_YEAR_ZERO, YEAR_FOUR_DIGITS, OFFSET_TO_15_59]) });
}
export const isoDateTime = storableDateTime('Must be an ISO 8601 date and time, such as 2026-12-02T09:30:00Z or 2026-12-02T10:30:00+01:00');
const date = z.iso.date({ error: 'Must be an ISO 8601 date, such as 2026-12-02' });
export const isoDate = date
  .refine(yearFromOne, 'Year must be 0001 or later')
  .meta({ pattern: storablePattern(date, [NO_YEAR_ZERO, YEAR_FOUR_DIGITS]) });

/**
 * A bound of a range in a query: a date and time, or a date alone for that whole day in UTC, as
 * people write ranges (`createdFrom=2026-12-01&createdTo=2026-12-31`): a start from the day's first
 * moment, an end to its last (the bounds are inclusive).
 */
const rangeBound = (edge: 'start' | 'end') => {
  const day = edge === 'start' ? 'from the start of that day' : 'to the end of that day';
  // A value that is neither is reported by the first branch's words, so they name both.
  const moment = storableDateTime(
    `Must be an ISO 8601 date and time, such as 2026-12-02T09:30:00Z, or a date, such as 2026-12-02 (${day}, UTC)`,
  );
  return z
    .union([moment, isoDate.transform((date) => `${date}T${edge === 'start' ? '00:00:00' : '23:59:59.999999'}Z`)])
    .meta({ description: `A date and time, or a date alone: ${day} in UTC` });
};
export const rangeStart = rangeBound('start');
export const rangeEnd = rangeBound('end');

export const PaginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** `sort=field:asc|desc` restricted to the given fields. */
export function sortQuery<const F extends readonly [string, ...string[]]>(fields: F, fallback: `${F[number]}:${'asc' | 'desc'}`) {
  const wanted = `Must be one of ${fields.join(', ')} followed by :asc or :desc`;
  return z
    .string()
    .regex(new RegExp(`^(${fields.join('|')}):(asc|desc)$`), {
      error: (issue) => {
        const meant = typeof issue.input === 'string' ? meantSort(issue.input, fields) : null;
        return meant ? `${wanted}; did you mean ${meant}?` : wanted;
      },
    })
    .default(fallback)
    .transform((v) => {
      const [field, dir] = v.split(':');
      return { field: field as F[number], direction: dir.toUpperCase() as 'ASC' | 'DESC' };
    });
}

/**
 * The sort a value in another API's style probably meant: `created_at:DESC`, `-createdAt`
 * (JSON:API's descending), `createdAt desc` (a `+` in the URL), or a field without its direction.
 */
function meantSort(value: string, fields: readonly string[]): string | null {
  const [name = '', direction = ''] = value.replace(/^[-+]/, '').split(/[:\s,]+/);
  const field = meantName(name, fields);
  if (!field) return null;
  const wanted = value.startsWith('-') ? 'desc' : /^asc/i.test(direction) ? 'asc' : /^desc/i.test(direction) ? 'desc' : null;
  return wanted ? `${field}:${wanted}` : `${field}:asc or ${field}:desc`;
}

export const PaginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    hasNext: z.boolean(),
    hasPrev: z.boolean(),
  })
  .meta({ id: 'Pagination' });

/** Contact fields shared by leads, partners, users and logins. */
/** The ISO 4217 codes the runtime knows (ICU's list, 162 in Node 20): "XYZ" is not money. */
const ISO_4217 = Intl.supportedValuesOf('currency');
const ISO_4217_SET = new Set(ISO_4217);

/**
 * A currency: an ISO 4217 code, upper-cased (`usd` is taken as USD, as Stripe takes it). The
 * document lists the codes, so generated clients and the fuzzer offer only real ones.
 */
export const currencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'Must be a 3-letter ISO 4217 currency code, e.g. USD')
  .transform((c) => c.toUpperCase())
  .refine((c) => ISO_4217_SET.has(c), 'Not an ISO 4217 currency code (e.g. USD, EUR, GBP)')
  .meta({ enum: ISO_4217, description: 'ISO 4217 code, e.g. USD (lower case is taken as upper case)' });

export const emailField = z
  .string()
  .trim()
  .max(254, 'At most 254 characters, the longest address mail servers accept (RFC 5321)')
  .pipe(z.email('Must be a valid email address'))
  // The pipe documents its input side (a string); the document also states the address rule itself.
  .meta({ format: 'email', pattern: z.regexes.email.source });
/**
 * 5-30 characters of digits and separators with at most 20 digits: the normalised phone (digits
 * only) is a varchar(20). One pattern, so the document states the same rule; linear, as every
 * repetition starts with a digit and separators are not digits.
 */
export const phoneField = z
  .string()
  .trim()
  .regex(/^\+?(?=[0-9 ()./-]{5,30}$)[ ()./-]*(?:[0-9][ ()./-]*){1,20}$/, 'Must be a phone number with country code (at most 20 digits)');
export const personName = nonBlank(100);
