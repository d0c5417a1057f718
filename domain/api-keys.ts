import { ApiKey } from '../db/entities';
import { isSubset } from '../lib/auth/scopes';
import { AppError, notFound } from '../lib/errors';
import { keyRevocation, notifyRevocation } from '../lib/auth/key-revocation';
import type { ApiKeyCreate } from '../contracts/api-key';
import type { DomainContext } from './context';
import { issueApiKey } from './tenants';

/**
 * Keys belong to the environment they operate on: a sandbox caller lists, revokes and creates
 * sandbox keys only. A key may not mint a key for the other environment (a sandbox key handed to a
 * contractor must never yield a live key), and a new key may only carry scopes its creator holds,
 * so a restricted key cannot mint a `*` key. The audit entry lands in the caller's environment,
 * which is now always the new key's.
 */
export async function createApiKey(
  ctx: DomainContext,
  callerScopes: string[],
  input: ApiKeyCreate,
): Promise<{ key: ApiKey; fullKey: string }> {
  if (input.environment !== undefined && input.environment !== ctx.scope.environment) {
    throw new AppError('forbidden', 'Insufficient permissions', [
      {
        field: 'environment',
        message: `A ${ctx.scope.environment} key can only create ${ctx.scope.environment} keys; create ${input.environment} keys with a ${input.environment} key (or X-Environment: ${input.environment} in the platform UI)`,
      },
    ]);
  }
  if (!isSubset(input.scopes, callerScopes)) {
    throw new AppError('forbidden', 'Insufficient permissions', [
      { field: 'scopes', message: 'A key cannot grant scopes its creator does not hold' },
    ]);
  }
  return issueApiKey(ctx.db.manager, {
    tenantId: ctx.scope.tenantId,
    ownerUserId: ctx.actorUserId,
    environment: ctx.scope.environment,
    name: input.name,
    scopes: input.scopes,
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
  });
}

export async function listApiKeys(ctx: DomainContext, q: { page: number; limit: number; status?: ('active' | 'revoked')[] }) {
  const qb = ctx.data.repo(ApiKey).select('k');
  if (q.status) qb.andWhere('k.status IN (:...status)', { status: q.status });
  const [rows, total] = await qb.orderBy('k.created_at', 'DESC').addOrderBy('k.id', 'DESC').page(q.page, q.limit);
  return { rows, total };
}

export async function getApiKey(ctx: DomainContext, id: string): Promise<ApiKey> {
  const key = await ctx.data.repo(ApiKey).findById(id);
  if (!key) throw notFound('API key');
  return key;
}

/** Revoking is permanent and idempotent; the key answers 401 from the next request on. */
export async function revokeApiKey(ctx: DomainContext, id: string): Promise<ApiKey> {
  const repo = ctx.data.repo(ApiKey);
  const key = await getApiKey(ctx, id);
  if (key.status === 'revoked') return key;
  key.status = 'revoked';
  key.revokedAt = new Date();
  const saved = await repo.save(key);
  // Every API process evicts the key from its cache (api/auth/key-cache.ts).
  await notifyRevocation(ctx.db, keyRevocation(key.keyHash));
  return saved;
}
