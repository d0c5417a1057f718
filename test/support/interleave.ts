import type { Response } from 'supertest';
import type { DataSource, QueryRunner } from 'typeorm';
import { waitUntil } from './wait-until';

/**
 * Two sides of a race run in a fixed order in PostgreSQL: the first stays in the middle of its
 * transaction, holding what the second needs; the second starts and must be seen waiting for the
 * first (pg_blocking_pids) before the first goes on and ends. A test so checks the order it names,
 * and fails when the second is answered without waiting, instead of passing by luck of timing.
 */

/** A transaction of the test's own, on a connection of its own. */
export interface TestTransaction {
  runner: QueryRunner;
  pid: number;
  end(commit: boolean): Promise<void>;
}

export async function transaction(db: DataSource): Promise<TestTransaction> {
  const runner = db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
  return {
    runner,
    pid,
    end: async (commit) => {
      await (commit ? runner.commitTransaction() : runner.rollbackTransaction());
      await runner.release();
    },
  };
}

/** An API request, sent when called (a supertest request is sent once something awaits it). */
export type Send = () => PromiseLike<Response>;

/**
 * The first side of a race. Either statements of a transaction of the test's own, committed once
 * the second side waits (a delete in progress, as the API's would be), after `whileSecondWaits`
 * when given (what the first side does next, e.g. a lock that must be free then); or a request caught in the
 * middle of its transaction: `pause` takes a lock in a transaction of the test's, the request must
 * wait for it in a statement matching `pausedIn` (after it took what the second side needs), and
 * goes on once that transaction rolls back.
 */
export type First =
  | { statements: (tx: QueryRunner) => Promise<unknown>; whileSecondWaits?: (tx: QueryRunner) => Promise<unknown> }
  | { request: Send; pause: (tx: QueryRunner) => Promise<unknown>; pausedIn: RegExp };

/** The second side: a request that must wait for the first in a statement matching `waitsIn`. */
export interface Second {
  request: Send;
  waitsIn: RegExp;
}

/**
 * Runs `first` to the middle of its transaction, then `second` until it waits for it, then lets
 * `first` end. The answers: the first side's when it is a request, and the second's.
 */
export async function interleave(db: DataSource, first: First, second: Second): Promise<{ first?: Response; second: Response }> {
  const held = await hold(db, first);
  const answer = Promise.resolve(second.request());
  try {
    await waiting(db, held.pid, second.waitsIn, `the second side to wait for the first in ${second.waitsIn}`, answer);
    await held.whileSecondWaits?.();
  } finally {
    await held.release();
  }
  return { first: await held.answer, second: await answer };
}

interface Held {
  pid: number;
  release(): Promise<void>;
  whileSecondWaits?: () => Promise<unknown>;
  answer?: Promise<Response>;
}

async function hold(db: DataSource, first: First): Promise<Held> {
  const tx = await transaction(db);
  try {
    if ('statements' in first) {
      await first.statements(tx.runner);
      const next = first.whileSecondWaits;
      return { pid: tx.pid, release: () => tx.end(true), whileSecondWaits: next && (() => next(tx.runner)) };
    }
    await first.pause(tx.runner);
    const answer = Promise.resolve(first.request());
    const pid = await waiting(db, tx.pid, first.pausedIn, `the first request to be paused in ${first.pausedIn}`, answer);
    return { pid, release: () => tx.end(false), answer };
  } catch (err) {
    await tx.end(false);
    throw err;
  }
}

/**
 * The backend of `request` once it waits in PostgreSQL for a lock `pid` holds (in a statement that
 * matches `query`); fails as soon as the request is answered instead, without having waited.
 */
function waiting(db: DataSource, pid: number, query: RegExp, what: string, request: Promise<Response>): Promise<number> {
  const waits = waitUntil(async () => {
    const rows: { pid: number; query: string }[] = await db.query(
      `SELECT pid, query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))`,
      [pid],
    );
    return rows.find((r) => query.test(r.query))?.pid;
  }, what);
  const answered = request.then((res): number => {
    throw new Error(`expected ${what}, but it was answered ${res.status} without waiting: ${JSON.stringify(res.body)}`);
  });
  answered.catch(() => undefined); // the answer that comes after the wait is the test's to read
  return Promise.race([waits, answered]);
}
