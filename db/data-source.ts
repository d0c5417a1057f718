import 'reflect-metadata';
import { DataSource, type Migration } from 'typeorm';
import { entities } from './entities';
import { migrations } from './migrations';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  /** Shown in pg_stat_activity, so an operator can tell the api from the worker. */
  applicationName?: string;
  /**
   * PostgreSQL's statement_timeout on every connection of the pool: a statement running (or
   * waiting for a lock) longer fails with 57014, which the API answers with a 503. 0 or unset: none.
   */
  statementTimeoutMs?: number;
}

/**
 * The service's statements are short and run again and again: PostgreSQL's JIT compiles a plan
 * whose estimated cost passes jit_above_cost each time it runs, and the estimates of the
 * multi-write statements pass it (a batch create's was 167,000 for 100 leads). On a PostgreSQL built
 * with LLVM (Debian's, the official Docker image; the embedded one has none) the batch spent
 * 100 ms of its 110 ms compiling. A DATABASE_URL that sets `options` replaces this.
 */
const NO_JIT = '-c jit=off';

/** Schema changes go through migrations only; `synchronize` stays off everywhere. */
export function createDataSource(opts: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: opts.url,
    entities,
    migrations,
    synchronize: false,
    migrationsRun: false,
    migrationsTransactionMode: 'each',
    poolSize: opts.poolSize ?? 10,
    applicationName: opts.applicationName ?? 'lead-engagement',
    extra: {
      connectionTimeoutMillis: 5000,
      options: NO_JIT,
      ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
    },
  });
}

export async function initializeDatabase(opts: DataSourceOptions & { migrate?: boolean }): Promise<DataSource> {
  // Migrations (an index over a large table) may take longer than any request should: they run on
  // connections of their own without the pool's statement_timeout, two of them because one holds
  // the migration lock while the other migrates.
  if (opts.migrate && opts.statementTimeoutMs) {
    const untimed = await initializeDatabase({ ...opts, statementTimeoutMs: undefined, poolSize: 2 });
    await untimed.destroy();
  }
  const ds = createDataSource(opts);
  await ds.initialize();
  if (opts.migrate && !opts.statementTimeoutMs) await runMigrationsExclusively(ds);
  return ds;
}

/** pg_advisory_lock key of the migration run ('lead-engagement migrations', any constant shared by all versions). */
const MIGRATION_LOCK_KEY = 7_302_514_901;

/**
 * runMigrations under a PostgreSQL advisory lock. TypeORM has no lock of its own: two processes
 * starting together (replicas, a migrate job beside `npm run admin`) both saw the same pending
 * migrations and both ran them. The second now waits, then finds nothing left to do. The lock
 * lives on a connection of its own, released with it even if this process dies mid-way.
 *
 * The wait polls pg_try_advisory_lock instead of blocking in pg_advisory_lock: a session blocked in
 * a statement holds that statement's snapshot all along, and CREATE INDEX CONCURRENTLY (a migration
 * with `transaction = false`) waits for every older snapshot to end, so the migrating process and
 * the waiting ones would each wait for the other forever.
 */
export async function runMigrationsExclusively(ds: DataSource): Promise<Migration[]> {
  const lock = ds.createQueryRunner();
  await lock.connect();
  try {
    while (!(await lock.query('SELECT pg_try_advisory_lock($1) AS locked', [MIGRATION_LOCK_KEY]))[0].locked) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    try {
      return await ds.runMigrations();
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lock.release();
  }
}
