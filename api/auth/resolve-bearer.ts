import type { Request } from 'express';
import type { DataSource } from 'typeorm';
import { Tenant, User } from '../../db/entities';
import { ENVIRONMENTS, type Environment } from '../../db/entities/tenant-owned';
import { verifyAccessToken } from '../../lib/auth/jwt';
import { scopesForRole } from '../../lib/auth/roles';
import { decodeId } from '../../lib/ids';
import { limitsFor } from '../../lib/plans';
import type { ResolvedKey } from './resolve-api-key';
import { unscoped } from '../../db/unscoped';

// RFC 9110: the scheme's name is case-insensitive (`bearer svc_...` is the same credential).
const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The credential of `Authorization: Bearer <credential>`: an API key (`svc_...`) or a session token. */
export const bearerToken = (req: Request): string | undefined => BEARER.exec(req.get('authorization') ?? '')?.[1];

/**
 * The platform UI's auth: `Authorization: Bearer <jwt>` plus `X-Tenant-Id`, which must
 * equal the token's tenant. The UI picks the environment with `X-Environment` (default live).
 * The user must still exist and be active; their role gives the scopes.
 */
export async function resolveBearer(db: DataSource, req: Request): Promise<Omit<ResolvedKey, 'keyId'> | null> {
  const token = bearerToken(req);
  if (!token) return null;
  const claims = verifyAccessToken(token);
  const tenantHeader = req.get('x-tenant-id');
  if (!claims || !tenantHeader || tenantHeader !== claims.tid) return null;
  const environmentHeader = req.get('x-environment') ?? 'live';
  if (!(ENVIRONMENTS as readonly string[]).includes(environmentHeader)) return null;
  const tenantId = decodeId('tenant', claims.tid);
  const userId = decodeId('user', claims.sub);
  if (!tenantId || !userId) return null;
  const [user, tenant] = await Promise.all([
    unscoped(db)
      .repo(User)
      .findOne({ where: { id: userId, tenantId } }),
    unscoped(db)
      .repo(Tenant)
      .findOne({ where: { id: tenantId } }),
  ]);
  if (!user || user.status !== 'active' || !tenant) return null;
  return {
    tenantId,
    environment: environmentHeader as Environment,
    ownerUserId: user.id,
    scopes: scopesForRole(user.roleId),
    limits: limitsFor(tenant),
  };
}
