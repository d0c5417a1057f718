/** PostgreSQL stores no U+0000 in text or jsonb, so input carrying one is refused before it gets there. */
export const NUL_MESSAGE = 'Must not contain the NUL character (U+0000)';

/**
 * Where the first U+0000 sits in a parsed JSON body or query (`tags.1`, `customFields.note`), in
 * a string value or an object key; null when there is none.
 */
export function findNulCharacter(value: unknown, path: string[] = []): string | null {
  const at = (p: string[]) => p.join('.') || 'body';
  if (typeof value === 'string') return value.includes('\u0000') ? at(path) : null;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findNulCharacter(item, [...path, String(i)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return at([...path, key.replaceAll('\u0000', '\\u0000')]);
      const found = findNulCharacter(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

/** A value with every U+0000 (in strings and keys) shown as U+FFFD, so that what held one can still be stored. */
export function withoutNulCharacters(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\uFFFD');
  if (Array.isArray(value)) return value.map(withoutNulCharacters);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replaceAll('\u0000', '\uFFFD'), withoutNulCharacters(v)]));
  }
  return value;
}
