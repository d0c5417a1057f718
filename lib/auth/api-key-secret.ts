import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '../../db/entities/tenant-owned';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const RANDOM_LENGTH = 43; // ~256 bits of entropy
const KEY_PREFIX_LENGTH = 16;
export const API_KEY_PATTERN = /^svc_(live|sandbox)_sk_[A-Za-z0-9]{43,}$/;

/** Unbiased base62 from crypto randomness (rejection sampling, no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(environment: Environment): { fullKey: string; keyPrefix: string; keyHash: string } {
  const fullKey = `svc_${environment}_sk_${randomBase62(RANDOM_LENGTH)}`;
  return { fullKey, keyPrefix: fullKey.slice(0, KEY_PREFIX_LENGTH), keyHash: hashApiKey(fullKey) };
}

/** Keys are looked up by hash: the database never holds a usable key, and lookups compare digests. */
export function hashApiKey(fullKey: string): string {
  return createHash('sha256').update(fullKey).digest('hex');
}
