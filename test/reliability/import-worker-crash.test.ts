import request from 'supertest';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../../db/data-source';
import { startServices, type Services } from '../support/processes/services';
import { newTenant, type TestTenant } from '../support/stack';
import { waitUntil } from '../support/wait-until';

/**
 * A worker SIGKILLed in the middle of a bulk import (issue 16): the chunk it was writing rolls back
 * with its connection, Temporal notices the missing heartbeats, and a fresh worker continues from
 * the last committed chunk. Every row is imported once, in file order, and the import completes.
 */
const ROWS = 40_000; // 8 chunks of 5,000: the kill lands after the first commit, well before the last

let db: DataSource;
let services: Services;

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  services = await startServices({
    databaseUrl: process.env.TEST_DB_URL as string,
    temporalAddress: process.env.TEST_TEMPORAL_ADDRESS as string,
  });
});

afterAll(async () => {
  await services?.stop();
  await db?.destroy();
});

type ImportState = { status: string; rowsRead: number; created: number; failed: number };

async function startImport(tenant: TestTenant, csv: string): Promise<string> {
  const api = () => request(services.api.baseUrl);
  const file = await api()
    .post('/v1/files/upload')
    .set(tenant.live)
    .attach('file', Buffer.from(csv), { filename: 'leads.csv', contentType: 'text/csv' })
    .expect(201);
  const created = await api()
    .post('/v1/leads/imports')
    .set(tenant.live)
    .send({
      fileId: file.body.data.id,
      format: 'csv',
      mapping: { email: 'Email', firstName: 'First name', lastName: 'Last name' },
      onExisting: 'skip',
    })
    .expect(202);
  return created.body.data.id;
}

const stateOf = async (tenant: TestTenant, id: string): Promise<ImportState> =>
  (await request(services.api.baseUrl).get(`/v1/leads/imports/${id}`).set(tenant.live).expect(200)).body.data;

it('imports every row once, in file order, when the worker is killed in the middle of a chunk', async () => {
  const tenant = await newTenant(db);
  const rows = Array.from({ length: ROWS }, (_, i) => `crash-${i}@example.com,Row,L${i}`);
  const id = await startImport(tenant, ['Email,First name,Last name', ...rows].join('\n') + '\n');

  // The first chunk committed; the worker is writing the next one when it dies.
  const before = await waitUntil(
    async () => {
      const state = await stateOf(tenant, id);
      return state.created >= 5_000 && state;
    },
    'the first chunk to commit',
    120_000,
  );
  expect(before.status).toBe('running');
  await services.worker.kill();
  const atKill = await stateOf(tenant, id);
  expect(atKill.rowsRead).toBeLessThan(ROWS);

  // With no worker, nothing moves; a new one picks the chunk up once the heartbeat times out (30 s).
  await services.replaceWorker();
  const done = await waitUntil(
    async () => {
      const state = await stateOf(tenant, id);
      return state.status !== 'running' && state.status !== 'queued' && state;
    },
    'the import to finish on the new worker',
    150_000,
  );
  expect(done).toMatchObject({ status: 'completed', rowsRead: ROWS, created: ROWS, failed: 0 });

  const leads: { last_name: string }[] = await db.query(
    `SELECT last_name FROM leads WHERE tenant_id = $1 AND environment = 'live' ORDER BY created_at, id`,
    [tenant.tenant.id],
  );
  expect(leads.length).toBe(ROWS);
  expect(leads.map((l) => l.last_name)).toEqual(rows.map((_, i) => `L${i}`));
  // Every lead is searchable: the index step of a chunk whose worker died ran again on the new one.
  const [indexed] = await db.query(
    `SELECT count(*)::int AS n FROM search_documents WHERE tenant_id = $1 AND environment = 'live' AND doc_type = 'lead'`,
    [tenant.tenant.id],
  );
  expect(indexed.n).toBe(ROWS);
}, 300_000);
