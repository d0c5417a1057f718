/** Deeper than any request shape of the API; deeper values would only feed recursive walkers (zod, the NUL check). */
export const MAX_JSON_DEPTH = 32;

/**
 * Whether a parsed JSON value nests objects or arrays deeper than `max`. An explicit stack, not
 * recursion: a 10,000-level value must not overflow the call stack here either. Linear in the value.
 */
export function depthExceeds(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
