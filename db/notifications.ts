import { Client } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import { ScopedData } from './scoped-data';

/** A LISTEN on its own connection; `close` ends it (and calls no `onLost`). */
export interface Subscription {
  close(): Promise<void>;
}

export interface ListenOptions {
  databaseUrl: string;
  /** Names the connection in pg_stat_activity. */
  applicationName: string;
  onMessage(payload: string): void;
  /** The connection died (restart, failover, network): nothing more arrives; the caller decides to listen again. */
  onLost(err?: Error): void;
}

/**
 * LISTEN holds a session, so it gets a dedicated connection of its own rather than one borrowed
 * from the pool (which would hand it to other queries between notifications).
 */
export async function listen(channel: string, opts: ListenOptions): Promise<Subscription> {
  const client = new Client({ connectionString: opts.databaseUrl, application_name: opts.applicationName });
  // Until LISTEN succeeded a failure rejects this call instead; after close() nothing is lost.
  let open = false;
  const lost = (err?: Error) => {
    if (!open) return;
    open = false;
    void client.end().catch(() => undefined);
    opts.onLost(err);
  };
  client.on('notification', (msg) => {
    if (msg.channel === channel && msg.payload) opts.onMessage(msg.payload);
  });
  client.on('error', (err) => lost(err));
  client.on('end', () => lost());
  try {
    await client.connect();
    await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    open = true;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return {
    close: async () => {
      open = false;
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * NOTIFY on `channel`. Through a transaction (a unit of work, or its manager) it is delivered when
 * that transaction commits, so listeners hear of a change only once they can read it.
 */
export async function notify(via: DataSource | EntityManager | ScopedData, channel: string, payload: string): Promise<void> {
  const runner = via instanceof ScopedData ? via['manager'] : via;
  await runner.query('SELECT pg_notify($1, $2)', [channel, payload]);
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
