import { createApp } from '../api/app';
import { initializeDatabase } from '../db/data-source';
import { Tenant } from '../db/entities';
import { newTenant, startStack, validLead, type TestStack } from './support/stack';
import request from 'supertest';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack({ app: { trustProxy: 1, limits: { authFailuresPerMinute: 5, ipPerMinute: 1_000_000 } } });
});
afterAll(() => stack.stop());

const ip = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

async function enterpriseTenant(limits: { monthlyCalls: number; perMinute: number; burst: number }) {
  const t = await newTenant(stack.db, 'enterprise');
  await stack.db.getRepository(Tenant).update({ id: t.tenant.id }, { customLimits: limits });
  return t;
}

/** Waits until the start of a fresh second, so a burst is not split across two windows. */
const atSecondStart = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
const atMinuteSafe = async () => {
  if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
};

describe('rate limits and usage', () => {
  it('puts the five limit headers on every API-key response', async () => {
    const t = await newTenant(stack.db, 'starter');
    await atMinuteSafe();
    const first = await stack.http().get('/v1/leads').set(t.live);
    const second = await stack.http().get('/v1/leads').set(t.live);
    expect(first.headers['x-ratelimit-limit']).toBe('300');
    expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(1);
    expect(Number(first.headers['x-ratelimit-reset'])).toBe(Math.ceil((Math.floor(Date.now() / 60_000) + 1) * 60));
    expect(first.headers['x-api-usage-limit']).toBe('10000');
    expect(Number(second.headers['x-api-usage-current'])).toBe(Number(first.headers['x-api-usage-current']) + 1);
  });

  it('caps a burst per second and answers 429 with Retry-After and the envelope', async () => {
    const t = await enterpriseTenant({ monthlyCalls: 1000, perMinute: 1000, burst: 5 });
    await atSecondStart();
    const results = await Promise.all(Array.from({ length: 12 }, () => stack.http().get('/v1/leads').set(t.sandbox)));
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(limited).toHaveLength(7);
    expect(limited[0].headers['retry-after']).toBe('1');
    expect(limited[0].body).toMatchObject({ success: false, status: 429, message: 'API call limit exceeded; upgrade the plan' });
  });

  it('enforces the per-minute limit across two API processes sharing the database', async () => {
    const t = await enterpriseTenant({ monthlyCalls: 1000, perMinute: 6, burst: 100 });
    const otherDb = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
    try {
      const second = createApp(
        { db: otherDb, workflows: { client: stack.client } as never, webhooks: { allowPrivateTargets: true } },
        { limits: { ipPerMinute: 1_000_000 } },
      );
      await atMinuteSafe();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await stack.http().get('/v1/leads').set(t.sandbox)).status);
        statuses.push((await request(second).get('/v1/leads').set(t.sandbox)).status);
      }
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.slice(6).every((s) => s === 429)).toBe(true);
      const refused = await request(second).get('/v1/leads').set(t.sandbox);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    } finally {
      await otherDb.destroy();
    }
  });

  it('counts only live calls toward the monthly quota and refuses calls beyond it', async () => {
    const t = await enterpriseTenant({ monthlyCalls: 3, perMinute: 1000, burst: 100 });
    for (let i = 0; i < 5; i++) expect((await stack.http().get('/v1/leads').set(t.sandbox)).status).toBe(200);
    const live = [];
    for (let i = 0; i < 4; i++) live.push(await stack.http().get('/v1/leads').set(t.live));
    expect(live.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(live[3].headers['x-api-usage-current']).toBe('3');
    expect(Number(live[3].headers['retry-after'])).toBeGreaterThan(0);
    const usage = await stack.http().get('/v1/usage').set(t.sandbox);
    expect(usage.status).toBe(200);
    expect(usage.body.data).toMatchObject({
      plan: 'enterprise',
      calls: { current: 3, limit: 3, remaining: 0 },
      rateLimit: { perMinute: 1000, burstPerSecond: 100 },
    });
  });

  it('answers key guessing from one IP with 429 after a few failures, without blocking other IPs', async () => {
    const attacker = ip();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push(
        (
          await stack
            .http()
            .get('/v1/leads')
            .set('X-Forwarded-For', attacker)
            .set('X-API-Key', `svc_live_sk_${'x'.repeat(42)}${i}`)
        ).status,
      );
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    const t = await newTenant(stack.db);
    let other = ip();
    while (other === attacker) other = ip();
    expect((await stack.http().get('/v1/leads').set('X-Forwarded-For', other).set(t.live)).status).toBe(200);
  });

  it('replays a POST with the same Idempotency-Key and refuses the key with another body', async () => {
    const t = await newTenant(stack.db);
    const body = validLead();
    const key = `idem-${Date.now()}`;
    const first = await stack.http().post('/v1/leads').set(t.live).set('Idempotency-Key', key).send(body);
    const again = await stack.http().post('/v1/leads').set(t.live).set('Idempotency-Key', key).send(body);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await stack.http().get('/v1/leads').set(t.live)).body.pagination.total).toBe(1);
    const different = await stack.http().post('/v1/leads').set(t.live).set('Idempotency-Key', key).send(validLead());
    expect(different.status).toBe(422);
    expect(different.body.errors[0].field).toBe('Idempotency-Key');
    // same key in the other environment is another key
    expect((await stack.http().post('/v1/leads').set(t.sandbox).set('Idempotency-Key', key).send(body)).status).toBe(201);
  });

  it('does not store failed requests, so a corrected retry can reuse the Idempotency-Key', async () => {
    const t = await newTenant(stack.db);
    const key = `fix-${Date.now()}`;
    expect((await stack.http().post('/v1/leads').set(t.live).set('Idempotency-Key', key).send({ email: 'bad' })).status).toBe(422);
    const fixed = await stack.http().post('/v1/leads').set(t.live).set('Idempotency-Key', key).send(validLead());
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });
});
