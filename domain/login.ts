import type { DataSource } from 'typeorm';
import { User } from '../db/entities';
import { issueAccessToken } from '../lib/auth/jwt';
import { verifyPassword } from '../lib/auth/password';
import { AppError } from '../lib/errors';
import { decodeId, encodeId } from '../lib/ids';
import type { LoginThrottle } from './login-throttle';
import { unscoped } from '../db/unscoped';
import { ScopedData } from '../db/scoped-data';
import { teamIdsOfUsers } from './memberships';

export const LOGIN_FAILED_MESSAGE = 'Invalid email or password; if your email belongs to several tenants, also give tenantId';
export const LOGIN_BLOCKED_MESSAGE = 'Too many failed login attempts; retry later';

export const loginBlocked = (retryAfterSeconds: number) =>
  new AppError('rate_limited', LOGIN_BLOCKED_MESSAGE, undefined, { 'Retry-After': String(retryAfterSeconds) });

/**
 * Email + password for the platform UI. Emails are unique per tenant, not globally, so a person in
 * several tenants names the tenant. An unknown email, an email in several tenants without tenantId,
 * a wrong password and a deactivated user all answer the same 401 after the same argon2 work, so
 * neither the answer nor its timing tells which. An account in backoff is refused before any
 * password work, whatever the password.
 */
export async function login(db: DataSource, throttle: LoginThrottle, input: { email: string; password: string; tenantId?: string }) {
  const retryAfter = await throttle.retryAfterSeconds(input.email);
  if (retryAfter > 0) throw loginBlocked(retryAfter);
  const tenantId = input.tenantId === undefined ? undefined : decodeId('tenant', input.tenantId);
  const candidates =
    tenantId === null
      ? []
      : await unscoped(db)
          .repo(User)
          .find({ where: { email: input.email.toLowerCase(), ...(tenantId ? { tenantId } : {}) }, take: 2 });
  const user = candidates.length === 1 ? candidates[0] : undefined;
  const ok = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !ok || user.status !== 'active') {
    await throttle.recordFailure(input.email);
    throw new AppError('unauthorized', LOGIN_FAILED_MESSAGE);
  }
  await throttle.clear(input.email);
  const tenant = encodeId('tenant', user.tenantId);
  const { token, expiresIn } = issueAccessToken({ sub: encodeId('user', user.id), tid: tenant });
  // Users and teams are tenant-wide: the environment of this scope selects nothing.
  const teams = await teamIdsOfUsers(new ScopedData(db.manager, { tenantId: user.tenantId, environment: 'live' }), [user.id]);
  return { user, teamIds: teams.get(user.id) ?? [], tenantId: tenant, accessToken: token, expiresIn };
}
