import { z } from 'zod';
import type { FieldError } from './errors';

// A missing required field says so, as Stripe's "Missing required param" does, instead of zod's
// "Invalid input: expected string, received undefined" (or, for an enum, "Invalid option"); an enum
// still lists its values. Schemas' own messages still win.
z.config({
  customError: (issue) => {
    // A query value that is not a number ("abc") reaches a coerced number as NaN: say what was wanted.
    if (issue.code === 'invalid_type' && issue.expected === 'number' && Number.isNaN(issue.input)) return 'Must be a number';
    if (issue.input !== undefined) return undefined;
    if (issue.code === 'invalid_type') return 'Required';
    if (issue.code === 'invalid_value') return `Required; one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    return undefined;
  },
});

/** Where a schema takes no `status`, the status moves through the resource's named actions. */
const STATUS_HINT =
  'Unknown field; the status changes through the named actions (POST /v1/<resource>/{id}/<action>, listed in the API docs)';

/**
 * zod issues as the spec's {field, message} pairs; field is the dotted path ("customFields.tier").
 * An unknown key becomes one error per key, named after that key.
 */
export function toFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...path, key].join('.'), message: key === 'status' ? STATUS_HINT : 'Unknown field' }));
    }
    return [{ field: path.join('.') || 'body', message: issue.message }];
  });
}
