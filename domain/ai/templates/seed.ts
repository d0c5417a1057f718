import { createHash } from 'node:crypto';

/** A stable 32-bit number from the request, so the same input always picks the same variants. */
export function seedOf(input: object): number {
  return createHash('sha256').update(JSON.stringify(input)).digest().readUInt32BE(0);
}

/** The n-th deterministic choice from a list (different n, different draw from the same seed). */
export function pick<T>(list: readonly T[], seed: number, n = 0): T {
  return list[((seed + n * 2654435761) % list.length) >>> 0] ?? list[0];
}

/** "3-5" picks a count within the range from the seed; "4" is 4; nothing is 3. Clamped to 1-10. */
export function emailCountFrom(range: string | undefined, seed: number): number {
  const m = /^\s*(\d{1,2})\s*(?:-\s*(\d{1,2}))?\s*$/.exec(range ?? '');
  if (!m) return 3;
  const lo = Math.min(Math.max(Number(m[1]), 1), 10);
  const hi = Math.min(Math.max(Number(m[2] ?? m[1]), lo), 10);
  return lo + (seed % (hi - lo + 1));
}

const STOP_WORDS = new Set(
  'a an and are about after all also any be but by can create for from get have into its just make more most need our out over please sequence some that the their them then this those to use want with would your you landing page email emails campaign generate write statuses stages status stage lead leads pipeline ignore schema previous instructions'.split(
    ' ',
  ),
);

/** Up to `max` distinctive words of the prompt (letters and digits only: nothing markup-like survives). */
export function keywords(prompt: string, max = 3): string[] {
  const words = prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9\s-]/g, ' ')
    .split(/[\s-]+/)
    .filter((w) => w.length >= 3 && w.length <= 24 && !STOP_WORDS.has(w) && !/^\d+$/.test(w));
  return [...new Set(words)].slice(0, max);
}

export const titleCase = (s: string) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase());
