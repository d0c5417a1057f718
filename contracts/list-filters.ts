import { z } from 'zod';
import { didYouMean } from '../lib/near-names';

/**
 * Marks a query parameter that takes several values separated by commas: the router reads a
 * repeated one (`status=open&status=done`) as that list (api/http/route.ts), and the document says so.
 */
export const COMMA_LIST = 'x-comma-list';

/** At most this many values in one filter: a list of tenant-defined codes has no enum to bound it. */
const MAX_VALUES = 20;

const EMPTY_VALUE = 'an empty value (two commas in a row, or one at an end)';
const quoted = (v: string) => JSON.stringify(v);
const escaped = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * An enum filter that matches any of one or more values, separated by commas
 * (`status=open,in_progress`), as HubSpot's IN and JSON:API's comma lists do; a single value reads
 * as before. Its output is the distinct values, for `IN (:...values)`.
 */
export function anyOf<const V extends readonly [string, ...string[]]>(values: V, note?: string) {
  const one = `(?:${values.map(escaped).join('|')})`;
  return z
    .string()
    .regex(new RegExp(`^${one}(?:,${one})*$`), { error: (issue) => notAllListed(issue.input, values) })
    .transform((v) => [...new Set(v.split(','))] as V[number][])
    .meta({
      [COMMA_LIST]: true,
      description: `One of ${values.map(quoted).join(', ')}, or several separated by commas to match any of them${note ? `. ${note}` : ''}`,
    });
}

/** Why a value of an enum list is refused: the values, which part is none of them, and the one it probably meant. */
function notAllListed(input: unknown, values: readonly string[]): string {
  const wanted = `Must be one of ${values.map(quoted).join(', ')}`;
  if (typeof input !== 'string') return wanted;
  const parts = input.split(',');
  const bad = parts.find((p) => !values.includes(p)) ?? '';
  const hint = didYouMean(bad, values, quoted);
  if (parts.length === 1) return hint ? `${wanted}; ${hint}` : wanted;
  const which = bad === '' ? EMPTY_VALUE : `${quoted(bad)} is none of them`;
  return `${wanted}, or several separated by commas; ${which}${hint ? `: ${hint}` : ''}`;
}

/**
 * A filter of one or more tenant-defined codes (lead statuses, deal stages) separated by commas:
 * which codes exist is the tenant's, so the domain checks them; here only their shape.
 */
export function codeList(maxLength: number) {
  return z
    .string()
    .transform((v, ctx) => {
      const codes = [...new Set(v.split(','))];
      const problem = codes.some((c) => c === '')
        ? `Has ${EMPTY_VALUE}`
        : codes.some((c) => c.length > maxLength)
          ? `Each value must be at most ${maxLength} characters long`
          : codes.length > MAX_VALUES
            ? `Must have at most ${MAX_VALUES} values separated by commas`
            : null;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
      return codes;
    })
    .meta({ [COMMA_LIST]: true, pattern: `^[^,]{1,${maxLength}}(?:,[^,]{1,${maxLength}}){0,${MAX_VALUES - 1}}$` });
}
