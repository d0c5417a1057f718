import type { DataSource } from 'typeorm';
import type { Config } from '../lib/config';
import { initializeDatabase } from './data-source';

/**
 * The worker's connections, apart from the API's even when both run in one process (npm start):
 * a flood of background work waits for these and never for the API's. Activities are bounded to
 * the same number (createWorker's maxConcurrentActivities) and statements time out.
 */
export function initializeWorkerDatabase(
  url: string,
  config: Pick<Config, 'WORKER_DB_POOL_SIZE' | 'WORKER_DB_STATEMENT_TIMEOUT_MS'>,
): Promise<DataSource> {
  return initializeDatabase({
    url,
    applicationName: 'lead-engagement-worker',
    poolSize: config.WORKER_DB_POOL_SIZE,
    statementTimeoutMs: config.WORKER_DB_STATEMENT_TIMEOUT_MS,
  });
}
