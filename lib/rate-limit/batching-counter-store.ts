import { logger } from '../logger';
import type { CounterHit, CounterStore } from './counter-store';

const FLUSH_EVERY_MS = 50;

interface Pending {
  hit: CounterHit;
  by: number;
}

const idOf = (h: { key: string; windowStart: Date }) => `${h.key}@${h.windowStart.getTime()}`;

/**
 * Counts in memory and writes the sums to the shared store every 50 ms in one statement, so a
 * request does not wait for (or contend on) the hot counter rows. A decision uses the last count
 * the store returned plus this process's hits since; it goes to the store synchronously instead
 * when this process has not seen the window yet, or when the estimate is past the hit's
 * `exactAbove` (close to its limit), so limits stay exact where it matters, also across several
 * API processes. A crash loses at most the last 50 ms of counts.
 */
export class BatchingCounterStore implements CounterStore {
  /** Totals the store last returned, per counter window. */
  private readonly known = new Map<string, { count: number; expiresAt: number }>();
  private pending = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly inner: CounterStore,
    flushEveryMs = FLUSH_EVERY_MS,
  ) {
    this.timer = setInterval(() => void this.flush(), flushEveryMs);
    this.timer.unref();
  }

  async hit(hits: CounterHit[]): Promise<number[]> {
    const results: number[] = new Array(hits.length);
    const direct: { index: number; hit: CounterHit }[] = [];
    hits.forEach((h, index) => {
      const id = idOf(h);
      const by = h.by ?? 1;
      const known = this.known.get(id);
      const estimate = known === undefined ? undefined : known.count + (this.pending.get(id)?.by ?? 0) + by;
      if (estimate === undefined || (h.exactAbove !== undefined && estimate > h.exactAbove)) {
        // Takes this counter's unsent hits along, so the store's answer is the whole truth.
        const unsent = this.pending.get(id)?.by ?? 0;
        this.pending.delete(id);
        direct.push({ index, hit: { ...h, by: by + unsent } });
      } else {
        this.add(h, by);
        results[index] = estimate;
      }
    });
    if (direct.length) {
      const counts = await this.inner.hit(direct.map((d) => d.hit));
      direct.forEach((d, i) => {
        this.remember(d.hit, counts[i]);
        results[d.index] = counts[i];
      });
    }
    return results;
  }

  async read(key: string, windowStart: Date): Promise<number> {
    return (await this.inner.read(key, windowStart)) + (this.pending.get(idOf({ key, windowStart }))?.by ?? 0);
  }

  /** Writes the counts gathered since the last flush; failed writes are kept for the next one. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return Promise.resolve();
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.flushing = this.inner
      .hit(batch.map((p) => ({ ...p.hit, by: p.by })))
      .then((counts) => batch.forEach((p, i) => this.remember(p.hit, counts[i])))
      .catch((err) => {
        logger.warn({ err, counters: batch.length }, 'rate-limit counters not written; retrying with the next flush');
        for (const p of batch) this.add(p.hit, p.by);
      })
      .finally(() => {
        this.flushing = null;
        this.forgetExpired();
      });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
    await this.inner.close?.();
  }

  private add(hit: CounterHit, by: number): void {
    const id = idOf(hit);
    const p = this.pending.get(id);
    if (p) p.by += by;
    else this.pending.set(id, { hit, by });
  }

  /** Totals only grow between refunds, so an answer that arrives late never lowers what is known. */
  private remember(hit: CounterHit, count: number): void {
    const id = idOf(hit);
    const prev = this.known.get(id);
    this.known.set(id, { count: Math.max(prev?.count ?? count, count), expiresAt: hit.windowStart.getTime() + hit.ttlMs });
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [id, k] of this.known) if (k.expiresAt < now) this.known.delete(id);
  }
}
