import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { unscoped } from '../db/unscoped';

/** Failures an account may have before each further attempt has to wait. */
export const LOGIN_BACKOFF_AFTER_FAILURES = 5;
const FIRST_DELAY_SECONDS = 1;
const MAX_DELAY_SECONDS = 15 * 60;
const SWEEP_EVERY_MS = 60_000;

/** Failures are counted per email whether or not a user has it, so the backoff tells nothing either. */
const accountOf = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex');

/**
 * Per-account login backoff in PostgreSQL, so every API process sees the same count: after
 * LOGIN_BACKOFF_AFTER_FAILURES failures the account is refused (429) for 1 s, then 2 s, 4 s ...
 * up to 15 minutes, before any password work. The per-IP limit stops one source; this stops a
 * guesser spread over many IPs. A success clears the count; an hour without failures restarts it.
 */
export class LoginThrottle {
  private lastSweep = 0;

  constructor(private readonly db: DataSource) {}

  /** Seconds until `email` may try again, or 0. */
  async retryAfterSeconds(email: string): Promise<number> {
    const rows: { seconds: string }[] = await unscoped(this.db).rows(
      `SELECT ceil(extract(epoch FROM blocked_until - now())) AS seconds FROM login_failures WHERE account = $1 AND blocked_until > now()`,
      [accountOf(email)],
    );
    return rows.length ? Math.max(1, Number(rows[0].seconds)) : 0;
  }

  async recordFailure(email: string): Promise<void> {
    await unscoped(this.db).rows(
      `INSERT INTO login_failures AS f (account, failures, blocked_until, last_failure_at) VALUES ($1, 1, NULL, now())
       ON CONFLICT (account) DO UPDATE SET
         failures = CASE WHEN f.last_failure_at < now() - interval '1 hour' THEN 1 ELSE f.failures + 1 END,
         last_failure_at = now(),
         blocked_until = CASE
           WHEN f.last_failure_at >= now() - interval '1 hour' AND f.failures + 1 >= $2
           THEN now() + make_interval(secs => least($4, $3 * power(2, f.failures + 1 - $2)))
         END`,
      [accountOf(email), LOGIN_BACKOFF_AFTER_FAILURES, FIRST_DELAY_SECONDS, MAX_DELAY_SECONDS],
    );
    const now = Date.now();
    if (now - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = now;
      void unscoped(this.db)
        .rows(`DELETE FROM login_failures WHERE last_failure_at < now() - interval '1 day'`)
        .catch(() => undefined);
    }
  }

  async clear(email: string): Promise<void> {
    await unscoped(this.db).rows('DELETE FROM login_failures WHERE account = $1', [accountOf(email)]);
  }
}
