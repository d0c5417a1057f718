import { parseArgs } from 'node:util';
import type { DataSource } from 'typeorm';
import { Tenant, User } from '../db/entities';
import { PLANS, type Plan } from '../db/entities/tenant';
import { ENVIRONMENTS, type Environment } from '../db/entities/tenant-owned';
import { createTenant, issueApiKey } from '../domain/tenants';
import { decodeId, encodeId } from '../lib/ids';
import { limitsFor } from '../lib/plans';

export const USAGE = `Usage:
  npm run admin -- tenant create --name NAME --plan PLAN [--owner-email EMAIL]
  npm run admin -- tenant list
  npm run admin -- tenant set-plan --tenant TENANT_ID --plan PLAN [--monthly N --per-minute N --burst N]
  npm run admin -- key create --tenant TENANT_ID --environment live|sandbox [--name NAME] [--scopes a,b]
Plans: ${PLANS.join(', ')}. Output is JSON on stdout.`;

export class UsageError extends Error {}

function plan(value: string | undefined): Plan {
  if (!value || !(PLANS as readonly string[]).includes(value)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return value as Plan;
}

async function tenantOf(db: DataSource, value: string | undefined): Promise<Tenant> {
  const id = value ? decodeId('tenant', value) : null;
  const tenant = id ? await db.getRepository(Tenant).findOneBy({ id }) : null;
  if (!tenant) throw new UsageError(`--tenant must be an existing tenant ID (got ${value ?? 'nothing'})`);
  return tenant;
}

const positive = (name: string, v: string | undefined) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return n;
};

/**
 * The operator's bootstrap commands: tenants and their first keys exist before any API key does,
 * so no API route can create them. Returns the JSON to print.
 */
export async function runAdmin(db: DataSource, argv: string[]): Promise<unknown> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      tenant: { type: 'string' },
      environment: { type: 'string' },
      scopes: { type: 'string' },
      'owner-email': { type: 'string' },
      monthly: { type: 'string' },
      'per-minute': { type: 'string' },
      burst: { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  switch (command) {
    case 'tenant create': {
      if (!values.name?.trim()) throw new UsageError('--name is required');
      const created = await createTenant(db, { name: values.name.trim(), plan: plan(values.plan), ownerEmail: values['owner-email'] });
      return {
        tenantId: encodeId('tenant', created.tenant.id),
        userId: encodeId('user', created.user.id),
        email: created.user.email,
        password: created.password,
        liveKey: created.liveKey,
        sandboxKey: created.sandboxKey,
      };
    }
    case 'tenant list': {
      const tenants = await db.getRepository(Tenant).find({ order: { id: 'ASC' } });
      return tenants.map((t) => ({
        tenantId: encodeId('tenant', t.id),
        name: t.name,
        plan: t.plan,
        limits: limitsFor(t),
        createdAt: t.createdAt.toISOString(),
      }));
    }
    case 'tenant set-plan': {
      const tenant = await tenantOf(db, values.tenant);
      tenant.plan = plan(values.plan);
      const custom = values.monthly ?? values['per-minute'] ?? values.burst;
      if (custom !== undefined && tenant.plan !== 'enterprise') throw new UsageError('custom limits are for the enterprise plan only');
      tenant.customLimits =
        tenant.plan === 'enterprise' && custom !== undefined
          ? {
              monthlyCalls: positive('monthly', values.monthly),
              perMinute: positive('per-minute', values['per-minute']),
              burst: positive('burst', values.burst),
            }
          : null;
      await db.getRepository(Tenant).save(tenant);
      return { tenantId: encodeId('tenant', tenant.id), plan: tenant.plan, limits: limitsFor(tenant) };
    }
    case 'key create': {
      const tenant = await tenantOf(db, values.tenant);
      const environment = values.environment as Environment;
      if (!(ENVIRONMENTS as readonly string[]).includes(environment)) throw new UsageError('--environment must be live or sandbox');
      const owner = await db
        .getRepository(User)
        .findOne({ where: { tenantId: tenant.id, roleId: 'admin', status: 'active' }, order: { id: 'ASC' } });
      if (!owner) throw new UsageError('the tenant has no active admin user to own the key');
      const scopes = values.scopes ? values.scopes.split(',').map((s) => s.trim()) : ['*'];
      const { key, fullKey } = await issueApiKey(db.manager, {
        tenantId: tenant.id,
        ownerUserId: owner.id,
        environment,
        name: values.name ?? 'Admin-issued key',
        scopes,
      });
      return { id: encodeId('apiKey', key.id), tenantId: encodeId('tenant', tenant.id), environment, scopes, fullKey };
    }
    default:
      throw new UsageError(`unknown command "${command}"\n${USAGE}`);
  }
}
