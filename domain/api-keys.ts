import { ApiKey } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { isSubset } from '../lib/auth/scopes';
import { AppError, notFound } from '../lib/errors';
import { REVOCATION_CHANNEL } from '../api/auth/key-cache';
import type { ApiKeyCreate } from '../api/schemas/api-key';
import type { DomainContext } from './context';
import { issueApiKey } from './tenants';
import { countedPage } from '../db/counted-page';

/**
 * Keys belong to the environment they operate on: a sandbox caller lists and revokes sandbox keys.
 * A new key may only carry scopes its creator holds, so a restricted key cannot mint a `*` key.
 */
export async function createApiKey(
  ctx: DomainContext,
  callerScopes: string[],
  input: ApiKeyCreate,
): Promise<{ key: ApiKey; fullKey: string }> {
  if (!isSubset(input.scopes, callerScopes)) {
    throw new AppError('forbidden', 'Insufficient permissions', [
      { field: 'scopes', message: 'A key cannot grant scopes its creator does not hold' },
    ]);
  }
  return issueApiKey(ctx.db.manager, {
    tenantId: ctx.scope.tenantId,
    ownerUserId: ctx.actorUserId,
    environment: input.environment ?? ctx.scope.environment,
    name: input.name,
    scopes: input.scopes,
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
  });
}

export async function listApiKeys(ctx: DomainContext, q: { page: number; limit: number; status?: 'active' | 'revoked' }) {
  const qb = scoped(ctx.db.manager, ApiKey, ctx.scope).query('k');
  if (q.status) qb.andWhere('k.status = :status', { status: q.status });
  const [rows, total] = await countedPage(qb.orderBy('k.created_at', 'DESC').addOrderBy('k.id', 'DESC'), q.page, q.limit);
  return { rows, total };
}

export async function getApiKey(ctx: DomainContext, id: string): Promise<ApiKey> {
  const key = await scoped(ctx.db.manager, ApiKey, ctx.scope).findById(id);
  if (!key) throw notFound('API key');
  return key;
}

/** Revoking is permanent and idempotent; the key answers 401 from the next request on. */
export async function revokeApiKey(ctx: DomainContext, id: string): Promise<ApiKey> {
  const repo = scoped(ctx.db.manager, ApiKey, ctx.scope);
  const key = await getApiKey(ctx, id);
  if (key.status === 'revoked') return key;
  key.status = 'revoked';
  key.revokedAt = new Date();
  const saved = await repo.save(key);
  // Every API process evicts the key from its cache (api/auth/key-cache.ts).
  await ctx.db.query(`SELECT pg_notify('${REVOCATION_CHANNEL}', $1)`, [key.keyHash]);
  return saved;
}
