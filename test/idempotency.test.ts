import { SECRET_REPLAY_MESSAGE } from '../api/middleware/idempotency';
import { purgeIdempotencyKeys } from '../domain/idempotency-purge';
import { ensureIdempotencyPurgeSchedule, idempotencyPurgeScheduleId } from '../lib/temporal/idempotency-purge-schedule';
import { idempotencyPurgeWorkflow } from '../workflows/idempotency-purge';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const idem = () => `idem-${Math.random().toString(36).slice(2)}`;
const post = (path: string, headers: Record<string, string>, key: string, body: object) =>
  stack.http().post(path).set(headers).set('Idempotency-Key', key).send(body);
const newKey = async (scopes = ['*']) => ({
  'X-API-Key': (await post('/v1/api-keys', tenant.live, idem(), { name: 'Second', scopes })).body.data.fullKey as string,
});
const storedBody = async (key: string) =>
  ((await stack.db.query('SELECT response_body::text AS body FROM idempotency_keys WHERE key = $1', [key])) as { body: string }[]).map(
    (r) => r.body,
  );

describe('Idempotency-Key records are per caller', () => {
  it("never replays one API key's response to another key of the same tenant", async () => {
    const other = await newKey();
    const key = idem();
    const body = validLead();
    const first = await post('/v1/leads', tenant.live, key, body);
    const second = await post('/v1/leads', other, key, body);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.data.id).not.toBe(first.body.data.id);
    // and each key still replays its own
    const again = await post('/v1/leads', other, key, body);
    expect([again.headers['idempotent-replayed'], again.body.data.id]).toEqual(['true', second.body.data.id]);
  });

  it("never hands a new key's secret to another key replaying the same Idempotency-Key", async () => {
    const other = await newKey();
    const key = idem();
    const first = await post('/v1/api-keys', tenant.live, key, { name: 'Shared idem key' });
    const replay = await post('/v1/api-keys', other, key, { name: 'Shared idem key' });
    expect(first.status).toBe(201);
    expect(JSON.stringify(replay.body)).not.toContain(first.body.data.fullKey);
  });

  it('keeps platform UI users apart: records are scoped by the user', async () => {
    const tokens: Record<string, string>[] = [];
    for (const name of ['a', 'b']) {
      const email = `idem-${name}-${Date.now()}@example.com`;
      await stack
        .http()
        .post('/v1/users')
        .set(tenant.live)
        .send({ email, password: 'long enough', firstName: 'I', lastName: name, roleId: 'admin' });
      const login = await stack.http().post('/v1/auth/login').send({ email, password: 'long enough' });
      tokens.push({ Authorization: `Bearer ${login.body.data.accessToken}`, 'X-Tenant-Id': tenant.id });
    }
    const key = idem();
    const body = validLead();
    const first = await post('/v1/leads', tokens[0], key, body);
    const second = await post('/v1/leads', tokens[1], key, body);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });
});

describe('Idempotency-Key records keep no secrets', () => {
  it('stores a created API key redacted, and answers its replay with 409 instead of the secret', async () => {
    const key = idem();
    const first = await post('/v1/api-keys', tenant.live, key, { name: 'Once' });
    expect(first.status).toBe(201);
    const replay = await post('/v1/api-keys', tenant.live, key, { name: 'Once' });
    expect([replay.status, replay.body.message]).toEqual([409, SECRET_REPLAY_MESSAGE]);
    expect(JSON.stringify(replay.body)).not.toContain(first.body.data.fullKey);
    const [stored] = await storedBody(key);
    expect(stored).toContain(first.body.data.id);
    expect(stored).not.toContain(first.body.data.fullKey);
    const fresh = await post('/v1/api-keys', tenant.live, idem(), { name: 'Once' });
    expect(fresh.body.data.fullKey).toMatch(/^svc_live_sk_/);
  });

  it('does the same for webhook signing secrets, at registration and at rotation', async () => {
    const register = idem();
    const created = await post('/v1/integrations/webhooks', tenant.live, register, {
      url: 'http://127.0.0.1:9/hook',
      events: ['commission.paid'],
    });
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const rotate = idem();
    const rotated = await post(`/v1/integrations/webhooks/${created.body.data.id}/rotate-secret`, tenant.live, rotate, {});
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    for (const [path, key, secret, body] of [
      ['/v1/integrations/webhooks', register, created.body.data.secret, { url: 'http://127.0.0.1:9/hook', events: ['commission.paid'] }],
      [`/v1/integrations/webhooks/${created.body.data.id}/rotate-secret`, rotate, rotated.body.data.secret, {}],
    ] as const) {
      const replay = await post(path, tenant.live, key, body);
      expect([path, replay.status, replay.body.message]).toEqual([path, 409, SECRET_REPLAY_MESSAGE]);
      expect((await storedBody(key)).join()).not.toContain(secret);
    }
  });
});

describe('Idempotency-Key replays and scope', () => {
  it('re-checks the scope on a replay: a user whose role was lowered gets 403, not the stored response', async () => {
    const email = `demoted-${Date.now()}@example.com`;
    const user = await stack
      .http()
      .post('/v1/users')
      .set(tenant.live)
      .send({ email, password: 'long enough', firstName: 'D', lastName: 'M', roleId: 'manager' });
    const login = await stack.http().post('/v1/auth/login').send({ email, password: 'long enough' });
    const auth = { Authorization: `Bearer ${login.body.data.accessToken}`, 'X-Tenant-Id': tenant.id };
    const key = idem();
    const body = validLead();
    expect((await post('/v1/leads', auth, key, body)).status).toBe(201);
    await stack.http().patch(`/v1/users/${user.body.data.id}`).set(tenant.live).send({ roleId: 'viewer' });
    const replay = await post('/v1/leads', auth, key, body);
    expect([replay.status, replay.body.message]).toEqual([403, 'Insufficient permissions']);
  });
});

describe('Idempotency-Key purge', () => {
  const seed = async (count: number, ageMs: number) => {
    const keys = Array.from({ length: count }, () => idem());
    await stack.db.query(
      `INSERT INTO idempotency_keys (tenant_id, environment, principal, key, request_hash, status_code, created_at)
       SELECT $1, 'live', 'key:purge-test', k, repeat('0', 64), 201, now() - make_interval(secs => $3::double precision / 1000)
         FROM unnest($2::varchar[]) AS k`,
      [tenant.tenant.id, keys, ageMs],
    );
    return keys;
  };
  const remaining = async (keys: string[]) =>
    Number(
      (
        await stack.db.query('SELECT count(*) AS n FROM idempotency_keys WHERE tenant_id = $1 AND key = ANY($2)', [tenant.tenant.id, keys])
      )[0].n,
    );

  it('deletes records older than 24 h in bounded batches and keeps younger ones', async () => {
    const old = await seed(25, 25 * 3600_000);
    const young = await seed(3, 23 * 3600_000);
    const first = await purgeIdempotencyKeys(stack.db, { batchSize: 10, maxBatches: 2 });
    expect(first.deleted).toBe(20); // at most two batches of ten per run
    expect(await remaining(old)).toBe(5);
    const second = await purgeIdempotencyKeys(stack.db, { batchSize: 10, maxBatches: 2 });
    expect(second.deleted).toBeGreaterThanOrEqual(5);
    expect([await remaining(old), await remaining(young)]).toEqual([0, 3]);
  });

  it('runs as a workflow on the worker', async () => {
    const old = await seed(3, 25 * 3600_000);
    const result = await stack.client.workflow.execute(idempotencyPurgeWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `idempotency-purge-test-${Date.now()}`,
      args: [{}],
    });
    expect(result.deleted).toBeGreaterThanOrEqual(3);
    expect(await remaining(old)).toBe(0);
  });

  it('is registered as a schedule, idempotently', async () => {
    const first = await ensureIdempotencyPurgeSchedule(stack.client, stack.taskQueue);
    const again = await ensureIdempotencyPurgeSchedule(stack.client, stack.taskQueue);
    expect([first.created, again.created]).toEqual([true, false]);
    const handle = stack.client.schedule.getHandle(idempotencyPurgeScheduleId(stack.taskQueue));
    const description = await handle.describe();
    expect(description.spec.intervals?.[0].every).toBe(600_000);
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'idempotencyPurgeWorkflow',
      taskQueue: stack.taskQueue,
    });
    await handle.delete();
  });
});
