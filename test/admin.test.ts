import { initializeDatabase } from '../db/data-source';
import type { DataSource } from 'typeorm';
import { runAdmin, UsageError } from '../scripts/admin-commands';
import { startStack, type TestStack } from './support/stack';

let stack: TestStack;
let db: DataSource;
beforeAll(async () => {
  stack = await startStack();
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
});
afterAll(async () => {
  await db.destroy();
  await stack.stop();
});

describe('admin commands (bootstrap before any key exists)', () => {
  it('creates a tenant whose printed keys work, and lists it', async () => {
    const out = (await runAdmin(db, ['tenant', 'create', '--name', 'Acme Corp', '--plan', 'pro'])) as Record<string, string>;
    expect(Object.keys(out).sort()).toEqual(['email', 'liveKey', 'password', 'sandboxKey', 'tenantId', 'userId']);
    const res = await stack.http().get('/v1/leads').set('X-API-Key', out.liveKey);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('1000');
    const list = (await runAdmin(db, ['tenant', 'list'])) as { tenantId: string; plan: string }[];
    expect(list).toContainEqual(expect.objectContaining({ tenantId: out.tenantId, plan: 'pro' }));
  });

  it('changes a plan (with enterprise custom numbers) and issues extra keys', async () => {
    const { tenantId } = (await runAdmin(db, ['tenant', 'create', '--name', 'Big', '--plan', 'free'])) as Record<string, string>;
    const changed = await runAdmin(db, [
      'tenant',
      'set-plan',
      '--tenant',
      tenantId,
      '--plan',
      'enterprise',
      '--monthly',
      '9000000',
      '--per-minute',
      '20000',
      '--burst',
      '2000',
    ]);
    expect(changed).toMatchObject({ plan: 'enterprise', limits: { monthlyCalls: 9000000, perMinute: 20000, burst: 2000 } });
    const key = (await runAdmin(db, [
      'key',
      'create',
      '--tenant',
      tenantId,
      '--environment',
      'sandbox',
      '--scopes',
      'leads:read',
    ])) as Record<string, string>;
    expect(key.fullKey).toMatch(/^svc_sandbox_sk_/);
    const res = await stack.http().get('/v1/leads').set('X-API-Key', key.fullKey);
    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('20000');
    expect((await stack.http().get('/v1/users').set('X-API-Key', key.fullKey)).status).toBe(403);
  });

  it('explains bad usage', async () => {
    await expect(runAdmin(db, ['tenant', 'create', '--name', 'X', '--plan', 'platinum'])).rejects.toThrow(UsageError);
    await expect(runAdmin(db, ['tenant', 'set-plan', '--tenant', 'nope', '--plan', 'pro'])).rejects.toThrow(/existing tenant/);
    await expect(runAdmin(db, ['frobnicate'])).rejects.toThrow(/unknown command/);
  });
});
