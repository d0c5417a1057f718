import Redis from 'ioredis';
import type { CounterHit, CounterStore } from './counter-store';

const keyOf = (h: { key: string; windowStart: Date }) => `rl:${h.key}:${h.windowStart.getTime()}`;

/**
 * The same fixed-window counters in Redis (REDIS_URL): one pipelined INCRBY + PEXPIREAT per
 * counter, a single round trip per request like the PostgreSQL store.
 */
export class RedisCounterStore implements CounterStore {
  private readonly redis: Redis;

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  }

  async hit(hits: CounterHit[]): Promise<number[]> {
    if (hits.length === 0) return [];
    const pipeline = this.redis.multi();
    for (const h of hits) {
      pipeline.incrby(keyOf(h), h.by ?? 1);
      pipeline.pexpireat(keyOf(h), h.windowStart.getTime() + h.ttlMs);
    }
    const results = (await pipeline.exec()) ?? [];
    return hits.map((_, i) => {
      const [err, value] = results[i * 2] ?? [new Error('missing reply'), 0];
      if (err) throw err;
      return Number(value);
    });
  }

  async read(key: string, windowStart: Date): Promise<number> {
    return Number((await this.redis.get(keyOf({ key, windowStart }))) ?? 0);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
