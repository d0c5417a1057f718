import request from 'supertest';
import { ApiKeyCache } from '../api/auth/key-cache';
import { resolveApiKey } from '../api/auth/resolve-api-key';
import { ApiKey } from '../db/entities';
import { hashApiKey } from '../lib/auth/api-key-secret';
import { encodeId } from '../lib/ids';
import { startSecondApi } from './support/second-api';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const createKey = (body: Record<string, unknown>, headers = tenant.live) => stack.http().post('/v1/api-keys').set(headers).send(body);

describe('API keys', () => {
  it('creates a key whose full value is returned once, in the spec format, stored only as a hash', async () => {
    const res = await createKey({ name: 'CRM sync' });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatch(/generated/i);
    const k = res.body.data;
    expect(k).toMatchObject({ name: 'CRM sync', environment: 'live', status: 'active', scopes: ['*'] });
    expect(k.fullKey).toMatch(/^svc_live_sk_[A-Za-z0-9]{43}$/);
    expect(k.keyPrefix).toBe(k.fullKey.slice(0, 16));
    expect(k.id).toMatch(/^key[A-Za-z0-9]{13,14}$/);
    const stored = await stack.db.getRepository(ApiKey).findOneByOrFail({ keyPrefix: k.keyPrefix });
    expect(JSON.stringify(stored)).not.toContain(k.fullKey);
    const listed = await stack.http().get('/v1/api-keys').set(tenant.live);
    expect(JSON.stringify(listed.body)).not.toContain(k.fullKey);
    expect(listed.body.data.find((x: { id: string }) => x.id === k.id)).not.toHaveProperty('fullKey');
    const one = await stack.http().get(`/v1/api-keys/${k.id}`).set(tenant.live);
    expect(one.body.data).not.toHaveProperty('fullKey');
    expect(one.body.data.createdBy).toBe(encodeId('user', tenant.user.id));
  });

  it('creates sandbox keys with a sandbox key, and lists keys per environment', async () => {
    const res = await createKey({ name: 'Tests', environment: 'sandbox' }, tenant.sandbox);
    expect(res.status).toBe(201);
    expect(res.body.data.fullKey).toMatch(/^svc_sandbox_sk_/);
    const sandboxList = await stack.http().get('/v1/api-keys').set(tenant.sandbox);
    expect(sandboxList.body.data.every((k: { environment: string }) => k.environment === 'sandbox')).toBe(true);
    expect(sandboxList.body.data.map((k: { id: string }) => k.id)).toContain(res.body.data.id);
    const audit = await stack.http().get(`/v1/audit-logs?resourceId=${res.body.data.id}`).set(tenant.sandbox);
    expect(audit.body.data).toEqual([expect.objectContaining({ action: 'POST /v1/api-keys', environment: 'sandbox' })]);
    const liveAudit = await stack.http().get(`/v1/audit-logs?resourceId=${res.body.data.id}`).set(tenant.live);
    expect(liveAudit.body.data).toEqual([]);
  });

  it('does not let a key create a key for the other environment, in either direction', async () => {
    const before = await stack.db.getRepository(ApiKey).countBy({ tenantId: tenant.tenant.id });
    for (const [headers, environment] of [
      [tenant.sandbox, 'live'],
      [tenant.live, 'sandbox'],
    ] as const) {
      const res = await createKey({ name: 'Cross', environment, scopes: ['*'] }, headers);
      expect([res.status, res.body.message]).toEqual([403, 'Insufficient permissions']);
      expect(res.body.errors).toEqual([{ field: 'environment', message: expect.stringContaining(`with a ${environment} key`) }]);
      expect(JSON.stringify(res.body)).not.toMatch(/svc_(live|sandbox)_sk_/);
    }
    expect(await stack.db.getRepository(ApiKey).countBy({ tenantId: tenant.tenant.id })).toBe(before);
  });

  it('validates the name (required, at most 100 characters), scopes and expiry', async () => {
    const res = await createKey({ name: 'x'.repeat(101), scopes: ['leads:delete'], expiresAt: '2001-01-01T00:00:00Z' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['expiresAt', 'name', 'scopes.0']);
    expect((await createKey({})).status).toBe(422);
  });

  it('revokes a key: it answers 401 afterwards, and revoking again is harmless', async () => {
    const k = (await createKey({ name: 'Temp' })).body.data;
    const headers = { 'X-API-Key': k.fullKey };
    expect((await stack.http().get('/v1/leads').set(headers)).status).toBe(200);
    const revoked = await stack.http().delete(`/v1/api-keys/${k.id}`).set(tenant.live);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: k.id, status: 'revoked', revokedAt: expect.any(String) });
    const after = await stack.http().get('/v1/leads').set(headers);
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Invalid or missing API key');
    expect((await stack.http().delete(`/v1/api-keys/${k.id}`).set(tenant.live)).body.data.status).toBe('revoked');
  });

  it('answers missing, malformed, unknown, revoked and expired keys with the same 401, telling apart only what their form shows', async () => {
    const expired = (await createKey({ name: 'Soon', expiresAt: new Date(Date.now() + 60_000).toISOString() })).body.data;
    await stack.db.getRepository(ApiKey).update({ keyPrefix: expired.keyPrefix }, { expiresAt: new Date(Date.now() - 1000) });
    const revoked = (await createKey({ name: 'Gone' })).body.data;
    await stack.http().delete(`/v1/api-keys/${revoked.id}`).set(tenant.live);
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      malformed: 'not-a-key',
      unknown: 'svc_live_sk_' + 'A'.repeat(43),
      revoked: revoked.fullKey,
      expired: expired.fullKey,
    };
    // errors[0] says what was wrong with what was sent by its form alone: an unknown, a revoked and
    // an expired key (or a deactivated owner's) are told nothing apart.
    const unknown = 'Unknown, revoked or expired API key, or its owner was deactivated';
    const said: Record<string, string> = {
      missing: 'No API key sent: send it in the X-API-Key header, or as Authorization: Bearer <key>',
      malformed: 'Not an API key of this service: keys begin svc_live_sk_ or svc_sandbox_sk_',
      unknown,
      revoked: unknown,
      expired: unknown,
    };
    for (const [label, key] of Object.entries(cases)) {
      const req = stack.http().get('/v1/leads');
      const res = await (key === undefined ? req : req.set('X-API-Key', key));
      expect([label, res.status, res.body.message, res.body.errors]).toEqual([
        label,
        401,
        'Invalid or missing API key',
        [{ field: 'X-API-Key', message: said[label] }],
      ]);
    }
  });

  it('takes the key as Authorization: Bearer too, as Stripe clients send theirs, with the same 401 for a bad one', async () => {
    const key = (await createKey({ name: 'Bearer' })).body.data.fullKey as string;
    const ok = await stack.http().get('/v1/leads').set('Authorization', `Bearer ${key}`);
    expect(ok.status).toBe(200);
    const revoked = (await createKey({ name: 'Gone too' })).body.data;
    await stack.http().delete(`/v1/api-keys/${revoked.id}`).set(tenant.live);
    for (const header of [`Bearer ${revoked.fullKey}`, `Bearer svc_live_sk_${'A'.repeat(43)}`, 'Bearer not-a-key-or-token', key]) {
      const res = await stack.http().get('/v1/leads').set('Authorization', header);
      expect([header, res.status, res.body.message]).toEqual([header, 401, 'Invalid or missing API key']);
    }
    // The scheme's name in any case (RFC 9110); a key without it, or another scheme, is told how to send it.
    expect((await stack.http().get('/v1/leads').set('Authorization', `bearer ${key}`)).status).toBe(200);
    for (const header of [key, 'Basic dXNlcjpwYXNz']) {
      const res = await stack.http().get('/v1/leads').set('Authorization', header);
      expect(res.body.errors).toEqual([
        { field: 'Authorization', message: 'Not a Bearer credential: send Authorization: Bearer <key>, or the key in X-API-Key' },
      ]);
    }
    const token = await stack.http().get('/v1/leads').set('Authorization', 'Bearer not-a-key-or-token');
    expect(token.body.errors).toEqual([
      { field: 'X-Tenant-Id', message: "A session token (not an API key) needs X-Tenant-Id, its tenant's ID" },
    ]);
    const session = () => stack.http().get('/v1/leads').set('Authorization', 'Bearer not-a-key-or-token').set('X-Tenant-Id', tenant.id);
    expect((await session().set('X-Environment', 'staging')).body.errors).toEqual([
      { field: 'X-Environment', message: 'Must be "live" or "sandbox"' },
    ]);
    expect((await session()).body.errors).toEqual([
      {
        field: 'Authorization',
        message:
          'Session token invalid or expired, not of the X-Tenant-Id tenant, or its user deactivated: sign in again (POST /v1/auth/login)',
      },
    ]);
  });

  it('enforces scopes with 403 "Insufficient permissions", with write implying read', async () => {
    const reader = (await createKey({ name: 'Reader', scopes: ['leads:read'] })).body.data.fullKey;
    const writer = (await createKey({ name: 'Writer', scopes: ['leads:write'] })).body.data.fullKey;
    expect((await stack.http().get('/v1/leads').set('X-API-Key', reader)).status).toBe(200);
    const denied = await stack.http().post('/v1/leads').set('X-API-Key', reader).send({ email: 'a@b.co', firstName: 'A', lastName: 'B' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('Insufficient permissions');
    expect(denied.body.errors).toEqual([
      { field: 'scope', message: 'This endpoint needs the leads:write scope; the caller holds leads:read' },
    ]);
    expect((await stack.http().get('/v1/leads').set('X-API-Key', writer)).status).toBe(200);
    const users = await stack.http().get('/v1/users').set('X-API-Key', writer);
    expect([users.status, users.body.errors]).toEqual([
      403,
      [
        {
          field: 'scope',
          message: 'This endpoint needs the users:read scope (users:write or *:read grant it too); the caller holds leads:write',
        },
      ],
    ]);
  });

  it('does not let a restricted key mint a broader key', async () => {
    const limited = (await createKey({ name: 'Limited', scopes: ['api_keys:write', 'leads:read'] })).body.data.fullKey;
    const escalate = await stack
      .http()
      .post('/v1/api-keys')
      .set('X-API-Key', limited)
      .send({ name: 'Root', scopes: ['*'] });
    expect(escalate.status).toBe(403);
    const reader = (await createKey({ name: 'Read all', scopes: ['*:read', 'api_keys:write'] })).body.data.fullKey;
    for (const scopes of [['*'], ['leads:write'], ['api_keys:write', 'users:write']]) {
      const res = await stack.http().post('/v1/api-keys').set('X-API-Key', reader).send({ name: 'Broader', scopes });
      expect([scopes, res.status]).toEqual([scopes, 403]);
    }
    const narrower = await stack
      .http()
      .post('/v1/api-keys')
      .set('X-API-Key', limited)
      .send({ name: 'Narrow', scopes: ['leads:read'] });
    expect(narrower.status).toBe(201);
  });

  it('records when a key was last used', async () => {
    const k = (await createKey({ name: 'Used' })).body.data;
    expect(k.lastUsedAt).toBeNull();
    await stack.http().get('/v1/leads').set('X-API-Key', k.fullKey);
    await new Promise((r) => setTimeout(r, 100));
    const again = await stack.http().get(`/v1/api-keys/${k.id}`).set(tenant.live);
    expect(again.body.data.lastUsedAt).toEqual(expect.any(String));
  });
});

describe('API key cache across processes', () => {
  it('revoking in one API process is 401 at once in another that had the key cached', async () => {
    const other = await startSecondApi(stack);
    try {
      const k = (await createKey({ name: 'Cached elsewhere' })).body.data;
      expect((await request(other.app).get('/v1/leads').set('X-API-Key', k.fullKey)).status).toBe(200); // now cached there
      await stack.http().delete(`/v1/api-keys/${k.id}`).set(tenant.live);
      let status = 200;
      for (let i = 0; i < 50 && status === 200; i++) {
        status = (await request(other.app).get('/v1/leads').set('X-API-Key', k.fullKey)).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
    } finally {
      await other.stop();
    }
  });

  it('never caches a key whose lookup was in flight when its revocation arrived', async () => {
    const cache = new ApiKeyCache();
    await cache.listen(process.env.TEST_DB_URL as string);
    try {
      const k = (await createKey({ name: 'Racing' })).body.data;
      // The lookup's SELECT really runs against PostgreSQL and reads the key as active; its answer
      // is then held back until the revocation (committed, NOTIFY heard) is through.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let read!: () => void;
      const hasRead = new Promise<void>((r) => (read = r));
      const slowDb = new Proxy(stack.db, {
        get: (target, prop) =>
          prop === 'query'
            ? async (sql: string, params: unknown[]) => {
                const rows = await target.query(sql, params);
                if (sql.includes('key_hash')) {
                  read();
                  await held;
                }
                return rows;
              }
            : Reflect.get(target, prop),
      });
      const lookup = resolveApiKey(slowDb, cache, k.fullKey);
      await hasRead;
      const before = cache.generation;
      expect((await stack.http().delete(`/v1/api-keys/${k.id}`).set(tenant.live)).status).toBe(200);
      for (let i = 0; i < 250 && cache.generation === before; i++) await new Promise((r) => setTimeout(r, 20));
      expect(cache.generation).toBeGreaterThan(before); // the NOTIFY reached this cache
      // A request arriving now does not join the lookup that began before the revocation.
      expect(await resolveApiKey(stack.db, cache, k.fullKey)).toBeNull();
      release();
      expect(await lookup).toMatchObject({ keyId: expect.any(String) }); // read before the revocation
      expect(cache.get(hashApiKey(k.fullKey))).toBeNull();
      expect(await resolveApiKey(stack.db, cache, k.fullKey)).toBeNull();
    } finally {
      await cache.close();
    }
  });

  it('looks a key up once for a burst of requests that all miss the cache', async () => {
    const cache = new ApiKeyCache();
    const k = (await createKey({ name: 'Burst' })).body.data;
    let lookups = 0;
    const countingDb = new Proxy(stack.db, {
      get: (target, prop) =>
        prop === 'query'
          ? (sql: string, params: unknown[]) => {
              if (sql.includes('key_hash')) lookups++;
              return target.query(sql, params);
            }
          : Reflect.get(target, prop),
    });
    const resolved = await Promise.all(Array.from({ length: 20 }, () => resolveApiKey(countingDb, cache, k.fullKey)));
    expect(resolved[0]).toMatchObject({ keyId: expect.any(String) });
    expect(resolved.every((r) => r === resolved[0])).toBe(true);
    expect(lookups).toBe(1);
  });
});
