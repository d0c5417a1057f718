import type { DataSource } from 'typeorm';
import { unscoped } from '../../db/unscoped';

export interface CounterHit {
  key: string;
  windowStart: Date;
  /** How long the window's row must live (window length plus slack). */
  ttlMs: number;
  by?: number;
  /**
   * Where the count stops being an estimate: past it, a batching store asks the shared store
   * synchronously (set a little below the limit the count is checked against).
   */
  exactAbove?: number;
}

/** Fixed-window counters shared by all API processes. */
export interface CounterStore {
  /** Adds to each counter and returns the new counts, in the order given. */
  hit(hits: CounterHit[]): Promise<number[]>;
  read(key: string, windowStart: Date): Promise<number>;
  close?(): Promise<void>;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * PostgreSQL-backed counters: all of a request's counters in one multi-row upsert (one round
 * trip). Keys are sorted so concurrent requests lock rows in the same order and never deadlock.
 */
export class PgCounterStore implements CounterStore {
  private lastSweep = 0;

  constructor(private readonly db: DataSource) {}

  async hit(hits: CounterHit[]): Promise<number[]> {
    if (hits.length === 0) return [];
    const sorted = [...hits].sort((a, b) => a.key.localeCompare(b.key));
    const now = Date.now();
    const params: unknown[] = [];
    const values = sorted.map((h) => {
      params.push(h.key, h.windowStart, h.by ?? 1, new Date(h.windowStart.getTime() + h.ttlMs));
      const i = params.length;
      return `($${i - 3}, $${i - 2}, $${i - 1}, $${i})`;
    });
    const rows: { key: string; count: number }[] = await unscoped(this.db).rows(
      `INSERT INTO rate_counters (key, window_start, count, expires_at) VALUES ${values.join(', ')}
       ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + EXCLUDED.count
       RETURNING key, count`,
      params,
    );
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      void unscoped(this.db)
        .rows('DELETE FROM rate_counters WHERE expires_at < now()')
        .catch(() => undefined);
    }
    const byKey = new Map(rows.map((r) => [r.key, Number(r.count)]));
    return hits.map((h) => byKey.get(h.key) ?? 0);
  }

  async read(key: string, windowStart: Date): Promise<number> {
    const rows: { count: number }[] = await unscoped(this.db).rows('SELECT count FROM rate_counters WHERE key = $1 AND window_start = $2', [
      key,
      windowStart,
    ]);
    return rows.length ? Number(rows[0].count) : 0;
  }
}
