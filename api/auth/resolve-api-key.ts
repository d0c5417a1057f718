import type { DataSource } from 'typeorm';
import type { CustomLimits, Plan } from '../../db/entities/tenant';
import type { Environment } from '../../db/entities/tenant-owned';
import { API_KEY_PATTERN, hashApiKey } from '../../lib/auth/api-key-secret';
import { limitsFor } from '../../lib/plans';
import type { ApiKeyCache } from './key-cache';
import { unscoped } from '../../db/unscoped';

export interface ResolvedKey {
  keyId: string;
  tenantId: string;
  environment: Environment;
  ownerUserId: string;
  scopes: string[];
  limits: CustomLimits;
}

interface Row {
  id: string;
  tenant_id: string;
  environment: Environment;
  owner_user_id: string;
  scopes: string[];
  expires_at: Date | null;
  plan: Plan;
  custom_limits: CustomLimits | null;
}

/**
 * Looks a presented key up by its SHA-256 digest (never by comparing secrets) together with the
 * tenant's plan, in one query, or from the cache. Revoked and expired keys, and keys of a deactivated
 * owner, resolve to null like unknown ones.
 */
export async function resolveApiKey(db: DataSource, cache: ApiKeyCache, presented: string | undefined): Promise<ResolvedKey | null> {
  if (!presented || !API_KEY_PATTERN.test(presented)) return null;
  const hash = hashApiKey(presented);
  return cache.resolve(hash, () => lookUp(db, cache, hash));
}

async function lookUp(db: DataSource, cache: ApiKeyCache, hash: string): Promise<ResolvedKey | null> {
  const generation = cache.generation;
  const rows: Row[] = await unscoped(db).rows(
    `SELECT k.id, k.tenant_id, k.environment, k.owner_user_id, k.scopes, k.expires_at, t.plan, t.custom_limits
       FROM api_keys k JOIN tenants t ON t.id = k.tenant_id JOIN users u ON u.id = k.owner_user_id
      WHERE k.key_hash = $1 AND k.status = 'active' AND u.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > now())`,
    [hash],
  );
  const row = rows[0];
  if (!row) return null;
  // Last-used is informative: written at most once a minute per key, off the request path.
  void unscoped(db)
    .rows(
      `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [row.id],
    )
    .catch(() => undefined);
  const key: ResolvedKey = {
    keyId: String(row.id),
    tenantId: String(row.tenant_id),
    environment: row.environment,
    ownerUserId: String(row.owner_user_id),
    scopes: row.scopes,
    limits: limitsFor({ plan: row.plan, customLimits: row.custom_limits }),
  };
  cache.set(hash, key, row.expires_at, generation);
  return key;
}
