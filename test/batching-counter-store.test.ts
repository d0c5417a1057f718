import { initializeDatabase } from '../db/data-source';
import { BatchingCounterStore } from '../lib/rate-limit/batching-counter-store';
import { PgCounterStore, type CounterHit } from '../lib/rate-limit/counter-store';
import type { DataSource } from 'typeorm';

let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 4 });
});
afterAll(() => db.destroy());

const windowStart = new Date(Date.UTC(2030, 0, 1));
const hitOf = (key: string, extra: Partial<CounterHit> = {}): CounterHit => ({ key, windowStart, ttlMs: 60_000, ...extra });
const uniqueKey = () => `batch-test:${process.pid}:${Math.random().toString(36).slice(2)}`;

describe('batching rate-limit counters', () => {
  it('answers from memory, writes the sums in batches, and loses nothing on close', async () => {
    const pg = new PgCounterStore(db);
    const store = new BatchingCounterStore(pg, 60_000); // no timer flush during the test
    const key = uniqueKey();
    const counts: number[] = [];
    for (let i = 0; i < 10; i++) counts.push((await store.hit([hitOf(key)]))[0]);
    expect(counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Only the first hit (an unknown window) went to PostgreSQL; the rest wait for a flush.
    expect(await pg.read(key, windowStart)).toBe(1);
    expect(await store.read(key, windowStart)).toBe(10);
    await store.close();
    expect(await pg.read(key, windowStart)).toBe(10);
  });

  it('asks the shared store once a count nears its limit, so two processes never overshoot it', async () => {
    const pg = new PgCounterStore(db);
    const a = new BatchingCounterStore(pg, 60_000);
    const b = new BatchingCounterStore(pg, 60_000);
    const key = uniqueKey();
    const limit = 100;
    const exactAbove = 70;
    let allowed = 0;
    for (let i = 0; i < 150; i++) {
      const store = i % 2 ? b : a;
      const [count] = await store.hit([hitOf(key, { exactAbove })]);
      if (count <= limit) allowed++;
      // Each process flushes every 10 of its hits (its timer, made deterministic): the other's
      // unwritten hits stay well inside the 30 between exactAbove and the limit.
      if (i % 20 >= 18) await store.flush();
    }
    await Promise.all([a.close(), b.close()]);
    expect(allowed).toBe(limit);
    expect(await pg.read(key, windowStart)).toBe(150);
  });

  it('keeps counts whose write failed and writes them with the next flush', async () => {
    const pg = new PgCounterStore(db);
    let failNext = false;
    const flaky = {
      hit: (hits: CounterHit[]) => (failNext ? ((failNext = false), Promise.reject(new Error('connection lost'))) : pg.hit(hits)),
      read: pg.read.bind(pg),
    };
    const store = new BatchingCounterStore(flaky, 60_000);
    const key = uniqueKey();
    for (let i = 0; i < 5; i++) await store.hit([hitOf(key)]);
    failNext = true;
    await store.flush();
    expect(await pg.read(key, windowStart)).toBe(1);
    await store.flush();
    expect(await pg.read(key, windowStart)).toBe(5);
    await store.close();
  });
});
