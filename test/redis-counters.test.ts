import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import request from 'supertest';
import { createApp } from '../api/app';
import { Tenant } from '../db/entities';
import { RedisCounterStore } from '../lib/rate-limit/redis-counter-store';
import { newTenant, startStack, type TestStack } from './support/stack';

/**
 * The optional Redis counter store (REDIS_URL), against a real redis-server started here from the
 * machine's binary, so the test needs no running Redis.
 */
let stack: TestStack;
let redis: ChildProcess;
let url: string;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  stack = await startStack();
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redis.on('error', (err) => {
    throw new Error(`redis-server could not be started (install Debian's redis-server): ${err.message}`);
  });
  url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    const probe = new RedisCounterStore(url);
    try {
      await probe.read('probe', new Date(0));
      await probe.close();
      return;
    } catch {
      await probe.close();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('redis-server did not start');
});
afterAll(async () => {
  redis?.kill();
  await stack.stop();
});

describe('Redis counter store', () => {
  it('counts, reads back, and lets two API processes enforce one per-minute limit', async () => {
    const t = await newTenant(stack.db, 'enterprise');
    await stack.db.getRepository(Tenant).update({ id: t.tenant.id }, { customLimits: { monthlyCalls: 1000, perMinute: 4, burst: 100 } });
    const stores = [new RedisCounterStore(url), new RedisCounterStore(url)];
    const apps = stores.map((counterStore) =>
      createApp(
        { db: stack.db, workflows: { client: stack.client } as never },
        { counterStore, limits: { ipPerMinute: 1e9, authFailuresPerMinute: 1e9 } },
      ),
    );
    try {
      if (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 6_000));
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) for (const app of apps) statuses.push((await request(app).get('/v1/leads').set(t.live)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      const usage = await request(apps[0]).get('/v1/usage').set(t.sandbox);
      expect(usage.body.data.calls.current).toBe(4);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
