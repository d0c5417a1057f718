/**
 * What every benchmark run starts from: its own embedded PostgreSQL and Temporal dev server, the
 * schema, and an enterprise tenant with unlimited limits, one lead and one sent email whose open
 * and click links are signed. Shared by `npm run bench` (run.ts) and `npm run bench:ab` (ab.ts).
 */
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { startEmbeddedPostgres } from '../db/embedded';
import { Message, Tenant } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { signTrackingToken } from '../domain/communications/tracking-token';
import { createTenant } from '../domain/tenants';
import { config } from '../lib/config';
import { encodeId } from '../lib/ids';
import { startDevServer } from '../lib/temporal/dev-server';
import { findTemporalBinary } from '../lib/temporal/find-binary';

export interface BenchStack {
  dbUrl: string;
  temporalAddress: string;
  db: DataSource;
  /** Closes the connections, then stops Temporal and PostgreSQL (the cleanups are for a run that fails). */
  stop(): Promise<void>;
}

/** PostgreSQL and Temporal under `work`, on random ports; each is stopped by the cleanup it pushes. */
export async function startBenchStack(work: string, cleanups: (() => Promise<unknown>)[], log: (msg: string) => void): Promise<BenchStack> {
  log('starting embedded PostgreSQL and the Temporal dev server ...');
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(work, 'pg'),
    port: 54400 + Math.floor(Math.random() * 500),
    database: 'bench',
  });
  cleanups.push(() => pg.stop());
  const temporal = await startDevServer({
    binary: findTemporalBinary('cli', undefined, log),
    dataDir: work,
    port: 7400 + Math.floor(Math.random() * 200),
    uiPort: 0,
    namespace: 'default',
    headless: true,
  });
  cleanups.push(() => temporal.stop());
  const db = await initializeDatabase({ url: pg.url, migrate: true });
  return {
    dbUrl: pg.url,
    temporalAddress: temporal.address,
    db,
    stop: async () => {
      await db.destroy();
      await temporal.stop();
      await pg.stop();
    },
  };
}

export type BenchTenant = Awaited<ReturnType<typeof createBenchTenant>>;

/** The bench tenant (enterprise, unlimited), its live key's headers, one lead and the signed open and click paths of one email to it. */
export async function createBenchTenant(db: DataSource) {
  const created = await createTenant(db, { name: 'Bench', plan: 'enterprise' });
  await db.getRepository(Tenant).update({ id: created.tenant.id }, { customLimits: { monthlyCalls: 1e9, perMinute: 1e9, burst: 1e9 } });
  const [lead] = (await db.query(
    `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name) VALUES ($1, 'live', 'b@x.io', 'b@x.io', 'B', 'X') RETURNING id`,
    [created.tenant.id],
  )) as { id: string }[];
  const message = await scoped(db.manager, Message, { tenantId: created.tenant.id, environment: 'live' }).insert({
    channel: 'email',
    to: 'b@x.io',
    subject: 'Bench',
    body: 'Hi',
    status: 'sent',
    sandbox: false,
    marketing: true,
    leadId: lead.id,
    idempotencyKey: `bench-${Date.now()}`,
  });
  // Sent long ago, so hits are not flagged as machine traffic (prefetch within seconds of sending).
  await db.query(`UPDATE messages SET sent_at = now() - interval '1 day' WHERE id = $1`, [message.id]);
  const claims = { t: encodeId('tenant', created.tenant.id), e: 'live' as const, m: encodeId('message', message.id) };
  return {
    created,
    leadId: lead.id,
    key: { 'x-api-key': created.liveKey, 'content-type': 'application/json' },
    pixel: `/v1/t/o/${signTrackingToken(config.TRACKING_SECRET, { k: 'o', ...claims })}`,
    click: `/v1/t/c/${signTrackingToken(config.TRACKING_SECRET, { k: 'c', ...claims, u: 'https://example.com/pricing' })}`,
  };
}
