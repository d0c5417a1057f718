import type { FieldError } from './errors';

/**
 * Text PostgreSQL cannot store: U+0000 in text or jsonb, and a lone UTF-16 surrogate (a JSON
 * `"\ud800"` escape without its pair), which jsonb refuses. Input carrying either is refused
 * before it gets there, with the field named.
 */
export const NUL_MESSAGE = 'Must not contain the NUL character (U+0000)';
export const LONE_SURROGATE_MESSAGE = 'Must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) cannot be stored';

// With the u flag, an unpaired surrogate is a code point of category Cs; a pair is one astral character.
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

function problemOf(text: string): string | null {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  return LONE_SURROGATE.test(text) ? LONE_SURROGATE_MESSAGE : null;
}

const shownAsPath = (key: string) => key.replaceAll('\u0000', '\\u0000').replace(LONE_SURROGATES, '\uFFFD');

/**
 * The first string value or object key of a parsed JSON body or query that cannot be stored, as
 * a field error (`tags.1`, `customFields.note`; `body` for the value itself); null when none.
 */
export function findUnstorableText(value: unknown, path: string[] = []): FieldError | null {
  const at = (p: string[]) => p.join('.') || 'body';
  if (typeof value === 'string') {
    const message = problemOf(value);
    return message ? { field: at(path), message } : null;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findUnstorableText(item, [...path, String(i)]);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = problemOf(key);
      if (keyProblem) return { field: at([...path, shownAsPath(key)]), message: keyProblem };
      const found = findUnstorableText(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

const storableString = (text: string) => text.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');

/** A value whose unstorable characters (in strings and keys) are shown as U+FFFD, so that what held one can still be kept. */
export function storableText(value: unknown): unknown {
  if (typeof value === 'string') return storableString(value);
  if (Array.isArray(value)) return value.map(storableText);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableString(k), storableText(v)]));
  }
  return value;
}
