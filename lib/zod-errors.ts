import type { z } from 'zod';
import type { FieldError } from './errors';

/**
 * zod issues as the spec's {field, message} pairs; field is the dotted path ("customFields.tier").
 * An unknown key becomes one error per key, named after that key.
 */
export function toFieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...path, key].join('.'), message: 'Unknown field' }));
    }
    return [{ field: path.join('.') || 'body', message: issue.message }];
  });
}
