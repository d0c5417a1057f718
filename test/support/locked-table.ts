import type { QueryRunner } from 'typeorm';
import { SHARED_WINDOW_MS } from '../../api/middleware/tenant-fair-share';
import type { TestStack } from './stack';
import { waitUntil } from './wait-until';

/**
 * Runs `send` while writes to `table` wait on a lock, and releases it once `statements` statements
 * starting with `statementStart` wait there (a scope has one statement in flight) and the other
 * requests have queued behind them: group commits form for certain, not by luck. The tenant sends
 * alone (no other tenant's request within the fair share's window), so a request waiting for its
 * group gives its slot back and the tenant's next requests reach the group.
 */
export async function whileTableLocked<T>(
  stack: TestStack,
  table: string,
  statementStart: string,
  send: () => Promise<T>,
  statements = 1,
): Promise<T> {
  const runner: QueryRunner = stack.db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  await runner.query(`LOCK TABLE ${table} IN SHARE MODE`);
  await new Promise((r) => setTimeout(r, SHARED_WINDOW_MS + 100));
  const sent = send();
  try {
    await untilWaitingOnLock(stack, statementStart, statements);
    await new Promise((r) => setTimeout(r, 300)); // the other requests reach the queue meanwhile
  } finally {
    await runner.commitTransaction();
    await runner.release();
  }
  return sent;
}

/** Resolves once `statements` statements starting with `statementStart` wait on a lock. */
export async function untilWaitingOnLock(stack: TestStack, statementStart: string, statements = 1): Promise<void> {
  await waitUntil(async () => {
    const [{ n }] = await stack.db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
      [`${statementStart}%`],
    );
    return n >= statements;
  }, `${statements} ${statementStart} statement(s) to wait on the lock`);
}
