import argon2 from 'argon2';
import type { DataSource } from 'typeorm';
import { User } from '../db/entities';
import { issueAccessToken } from '../lib/auth/jwt';
import { AppError } from '../lib/errors';
import { decodeId, encodeId } from '../lib/ids';

export const LOGIN_FAILED_MESSAGE = 'Invalid email or password';

// Verifying against a fixed hash when the user is unknown keeps both paths equally slow.
const DUMMY_HASH = argon2.hash('not-a-real-password');

/**
 * Email + password for the platform UI. Emails are unique per tenant, not globally, so a person in
 * several tenants names the tenant. Unknown user, wrong password and deactivated user all answer
 * the same 401.
 */
export async function login(db: DataSource, input: { email: string; password: string; tenantId?: string }) {
  const tenantId = input.tenantId === undefined ? undefined : decodeId('tenant', input.tenantId);
  if (tenantId === null) throw new AppError('unauthorized', LOGIN_FAILED_MESSAGE);
  const candidates = await db
    .getRepository(User)
    .find({ where: { email: input.email.toLowerCase(), ...(tenantId ? { tenantId } : {}) }, take: 2 });
  if (candidates.length > 1) {
    throw new AppError('validation_failed', 'Validation failed', [
      { field: 'tenantId', message: 'This email belongs to several tenants; give tenantId' },
    ]);
  }
  const user = candidates[0];
  const ok = await argon2.verify(user?.passwordHash ?? (await DUMMY_HASH), input.password);
  if (!user || !ok || user.status !== 'active') throw new AppError('unauthorized', LOGIN_FAILED_MESSAGE);
  const tenant = encodeId('tenant', user.tenantId);
  const { token, expiresIn } = issueAccessToken({ sub: encodeId('user', user.id), tid: tenant });
  return { user, tenantId: tenant, accessToken: token, expiresIn };
}
