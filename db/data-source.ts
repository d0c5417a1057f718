import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { entities } from './entities';
import { migrations } from './migrations';

export interface DataSourceOptions {
  url: string;
  poolSize?: number;
  /** Shown in pg_stat_activity, so an operator can tell the api from the worker. */
  applicationName?: string;
  /** PostgreSQL statement_timeout for every connection of the pool (unset: the server's default). */
  statementTimeoutMs?: number;
}

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
    extra: { connectionTimeoutMillis: 5000, ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}) },
  });
}

export async function initializeDatabase(opts: DataSourceOptions & { migrate?: boolean }): Promise<DataSource> {
  const ds = createDataSource(opts);
  await ds.initialize();
  if (opts.migrate) await ds.runMigrations();
  return ds;
}
