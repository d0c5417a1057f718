import { z } from 'zod';
import type { FieldError } from './errors';
import { didYouMean } from './near-names';

// A missing required field says so, as Stripe's "Missing required param" does, instead of zod's
// "Invalid input: expected string, received undefined" (or, for an enum, "Invalid option"); an enum
// still lists its values. A value of the wrong type, outside an enum or out of range says what was
// wanted in words, as the API's own messages do ("Must be a number, not a string", "Must be at
// most 100"), not in zod's notation (`Invalid option: expected one of "a"|"b"`, `Too big: expected
// number to be <=100`, or `expected int, received number` for 1.5). Schemas' own messages still win.
z.config({ customError: (issue) => inWords(issue) });

type Issue = z.core.$ZodRawIssue;

/** The message for an issue zod raised without one of the schema's; undefined keeps zod's. */
function inWords(issue: Issue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'Required';
      // A query value that is not a number ("abc") reaches a coerced number as NaN: say what was wanted.
      if (issue.expected === 'number' && Number.isNaN(issue.input)) return 'Must be a number';
      // JSON's 1e400 (or a query's) reads as Infinity, which zod refuses as no number at all.
      if (issue.expected === 'number' && typeof issue.input === 'number') return 'Must be a number, not one too large to hold';
      const wanted = WANTED_TYPES[issue.expected];
      return wanted ? `Must be ${wanted}, not ${kindOf(issue.input)}` : undefined;
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => JSON.stringify(v)).join(', ');
      if (issue.input === undefined) return `Required; one of ${values}`;
      if (issue.values.length === 1) return `Must be ${values}`;
      const hint =
        typeof issue.input === 'string'
          ? didYouMean(
              issue.input,
              issue.values.filter((v) => typeof v === 'string'),
              (v) => JSON.stringify(v),
            )
          : null;
      return hint ? `Must be one of ${values}; ${hint}` : `Must be one of ${values}`;
    }
    case 'too_small':
      return rangeInWords(issue.origin, 'least', issue.minimum, issue.inclusive, issue.exact);
    case 'too_big':
      return rangeInWords(issue.origin, 'most', issue.maximum, issue.inclusive, issue.exact);
    case 'invalid_union':
      return unionInWords(issue.errors, issue.input);
    case 'unrecognized_keys': {
      // The object's own fields, for toFieldErrors' hints: the issue it gets keeps this `keys` array.
      const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
      if (shape) acceptedFields.set(issue.keys, Object.keys(shape));
      return undefined;
    }
    case 'invalid_key': {
      // A record's key (a custom field's name) that its own schema refused: zod said "Invalid key in record".
      const reason = issue.issues[0]?.message;
      return reason?.startsWith('Must ') ? `The key m${reason.slice(1)}` : undefined;
    }
    default:
      return undefined;
  }
}

/** zod's expected types in words; a type not listed keeps zod's own message. */
const WANTED_TYPES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

/** What a JSON value given in the wrong place is, in the same words. */
export function kindOf(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'an array';
  if (typeof input === 'number') return Number.isFinite(input) && !Number.isInteger(input) ? 'a fraction' : 'a number';
  if (typeof input === 'boolean') return input ? 'true' : 'false';
  if (typeof input === 'object') return 'an object';
  return `a ${typeof input}`;
}

/**
 * A value that is none of a union's types (a custom field's value): the types in words, when each
 * branch wanted a type of its own (`Must be a string, a number, true or false, or null, not an
 * object`); otherwise zod's `Invalid input`.
 */
function unionInWords(branches: z.core.$ZodIssue[][], input: unknown): string | undefined {
  const wanted = branches.map((issues) =>
    issues.length === 1 && issues[0].code === 'invalid_type' && !issues[0].path.length
      ? (WANTED_TYPES[issues[0].expected] ?? (issues[0].expected === 'null' ? 'null' : undefined))
      : undefined,
  );
  if (input === undefined || !wanted.length || wanted.some((w) => w === undefined)) return undefined;
  const last = wanted.pop();
  const listed = wanted.length ? `${wanted.join(', ')}${wanted.length > 1 ? ',' : ''} or ${last}` : last;
  return `Must be ${listed}, not ${kindOf(input)}`;
}

/** A bound a number, a text's length or a list's size broke; other origins (dates, files) keep zod's message. */
function rangeInWords(origin: string, side: 'least' | 'most', bound: number | bigint, inclusive = true, exact = false): string | undefined {
  if (origin === 'number' || origin === 'int' || origin === 'bigint') {
    return inclusive ? `Must be at ${side} ${bound}` : `Must be ${side === 'least' ? 'greater' : 'less'} than ${bound}`;
  }
  const count = Number(bound);
  const amount = (unit: string) => `${exact ? 'exactly' : `at ${side}`} ${count} ${unit}${count === 1 ? '' : 's'}`;
  if (origin === 'string') return `Must be ${amount('character')} long`;
  if (origin === 'array' || origin === 'set') return `Must have ${amount('item')}`;
  return undefined;
}

/** The fields of an object that was given unknown ones, by the `keys` of the issue zod raised for them. */
const acceptedFields = new WeakMap<readonly string[], string[]>();

/** Where a schema takes no `status`, the status moves through the resource's named actions. */
const STATUS_HINT =
  'Unknown field; the status changes through the named actions (POST /v1/<resource>/{id}/<action>, listed in the API docs)';

/**
 * An unknown field's message: the field or two it probably meant (`fristName`, `first_name`, `stage`
 * for `stageId`, `dueDate` for `dueAt`, `name` for `firstName or lastName`), else the fields the
 * object takes, as an unknown query parameter lists the endpoint's.
 */
function unknownField(key: string, accepted: string[] | undefined): string {
  if (key === 'status') return STATUS_HINT;
  if (!accepted?.length) return 'Unknown field';
  const hint = didYouMean(key, accepted);
  return hint ? `Unknown field; ${hint}` : `Unknown field; the fields here are ${accepted.join(', ')}`;
}

/**
 * A bound another issue of the same field makes tighter: `int()` brings its own (the largest safe
 * integer), so 1e20 for a score broke both it and the schema's 100, and was answered twice.
 */
function looserBound(issue: z.core.$ZodIssue, issues: z.core.$ZodIssue[]): boolean {
  const samePath = (other: z.core.$ZodIssue) => other.path.length === issue.path.length && other.path.every((p, i) => p === issue.path[i]);
  if (issue.code === 'too_big')
    return issues.some((o) => o !== issue && o.code === 'too_big' && samePath(o) && Number(o.maximum) < Number(issue.maximum));
  if (issue.code === 'too_small')
    return issues.some((o) => o !== issue && o.code === 'too_small' && samePath(o) && Number(o.minimum) > Number(issue.minimum));
  return false;
}

/**
 * zod issues as the spec's {field, message} pairs; field is the dotted path ("customFields.tier").
 * An unknown key becomes one error per key, named after that key.
 */
export function toFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues
    .filter((issue) => !looserBound(issue, error.issues))
    .flatMap((issue) => {
      const path = issue.path.map(String);
      if (issue.code === 'unrecognized_keys') {
        const accepted = acceptedFields.get(issue.keys);
        return issue.keys.map((key) => ({ field: [...path, key].join('.'), message: unknownField(key, accepted) }));
      }
      return [{ field: path.join('.') || 'body', message: issue.message }];
    });
}
