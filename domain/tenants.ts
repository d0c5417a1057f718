import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiKey, Tenant, User } from '../db/entities';
import type { Plan } from '../db/entities/tenant';
import type { Environment } from '../db/entities/tenant-owned';
import { generateApiKey } from '../lib/auth/api-key-secret';
import { hashPassword } from '../lib/auth/password';
import { unscoped } from '../db/unscoped';
import type { DomainContext } from './context';

export interface CreatedTenant {
  tenant: Tenant;
  user: User;
  password: string;
  liveKey: string;
  sandboxKey: string;
}

export interface CreateTenantInput {
  name: string;
  plan: Plan;
  ownerEmail?: string;
  ownerPassword?: string;
}

/** A tenant with its owner (admin) user and one live and one sandbox key, in one transaction. */
export async function createTenant(db: DataSource, input: CreateTenantInput): Promise<CreatedTenant> {
  const password = input.ownerPassword ?? randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  return db.transaction(async (m) => {
    const tenant = await unscoped(m)
      .repo(Tenant)
      .save(unscoped(m).repo(Tenant).create({ name: input.name, plan: input.plan }));
    const slug =
      input.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '') || 'tenant';
    const user = await unscoped(m)
      .repo(User)
      .save(
        unscoped(m)
          .repo(User)
          .create({
            tenantId: tenant.id,
            email: input.ownerEmail ?? `owner@${slug}-${tenant.id}.example.com`,
            passwordHash,
            firstName: 'Account',
            lastName: 'Owner',
            roleId: 'admin',
          }),
      );
    const liveKey = await issueApiKey(m, { tenantId: tenant.id, ownerUserId: user.id, environment: 'live', name: 'Default live key' });
    const sandboxKey = await issueApiKey(m, {
      tenantId: tenant.id,
      ownerUserId: user.id,
      environment: 'sandbox',
      name: 'Default sandbox key',
    });
    return { tenant, user, password, liveKey: liveKey.fullKey, sandboxKey: sandboxKey.fullKey };
  });
}

export interface IssueKeyInput {
  tenantId: string;
  ownerUserId: string;
  environment: Environment;
  name: string;
  scopes?: string[];
  expiresAt?: Date | null;
}

export async function issueApiKey(m: EntityManager, input: IssueKeyInput): Promise<{ key: ApiKey; fullKey: string }> {
  const { fullKey, keyPrefix, keyHash } = generateApiKey(input.environment);
  const repo = unscoped(m).repo(ApiKey);
  const key = await repo.save(
    repo.create({
      tenantId: input.tenantId,
      environment: input.environment,
      name: input.name,
      keyPrefix,
      keyHash,
      scopes: input.scopes ?? ['*'],
      ownerUserId: input.ownerUserId,
      expiresAt: input.expiresAt ?? null,
    }),
  );
  return { key, fullKey };
}

/** The plan of the tenant `ctx` acts for (tenants are nobody's rows, hence the unscoped door). */
export async function tenantPlan(ctx: Pick<DomainContext, 'db' | 'scope'>): Promise<Plan> {
  const tenant = await unscoped(ctx.db).repo(Tenant).findOneByOrFail({ id: ctx.scope.tenantId });
  return tenant.plan;
}
