import { notify } from '../../db/notifications';

/**
 * How a revocation reaches every API process's key cache (api/auth/key-cache.ts): a NOTIFY on this
 * channel whose payload names what stopped working, sent in (or right after) the transaction that
 * made the change, so listeners hear it only once the change is visible to their next lookup.
 */
export const REVOCATION_CHANNEL = 'api_key_revoked';

const OWNER_PREFIX = 'user:';

/** The payload revoking one key: its SHA-256 digest (never the key itself). */
export const keyRevocation = (keyHash: string) => keyHash;

/** The payload revoking every key a user owns (the user was deactivated). */
export const ownerRevocation = (userId: string) => `${OWNER_PREFIX}${userId}`;

export type Revocation = { keyHash: string } | { ownerUserId: string };

export function parseRevocation(payload: string): Revocation {
  return payload.startsWith(OWNER_PREFIX) ? { ownerUserId: payload.slice(OWNER_PREFIX.length) } : { keyHash: payload };
}

/** Sends a revocation through `via` (the pool, or a unit of work: then on commit). */
export const notifyRevocation = (via: Parameters<typeof notify>[0], payload: string) => notify(via, REVOCATION_CHANNEL, payload);
