import path from 'node:path';
import { config } from '../lib/config';
import { startEmbeddedPostgres } from './embedded';

export interface LocalDatabase {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export interface ResolveOptions {
  onLog?: (line: string) => void;
  /** Operator commands connect to the embedded PostgreSQL a running `npm start` holds; `npm start` itself refuses to share it. */
  attachToRunning?: boolean;
}

/** DATABASE_URL when set; otherwise a persistent embedded PostgreSQL under DATA_DIR. */
export async function resolveDatabase(opts: ResolveOptions = {}): Promise<LocalDatabase> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, embedded: false, stop: async () => {} };
  const db = await startEmbeddedPostgres({
    dataDir: path.join(config.DATA_DIR, 'postgres'),
    port: config.EMBEDDED_PG_PORT,
    database: 'lead_engagement',
    onLog: opts.onLog,
    attachToRunning: opts.attachToRunning,
  });
  return { url: db.url, stop: db.stop, embedded: true };
}
