import path from 'node:path';
import request from 'supertest';
import { Client } from 'pg';
import { initializeDatabase } from '../../db/data-source';
import { REVOCATION_CHANNEL } from '../../lib/auth/key-revocation';
import { hashApiKey } from '../../lib/auth/api-key-secret';
import { freePort } from '../support/free-port';
import { ServiceProcess } from '../support/processes/service-process';
import { startServices, type Services } from '../support/processes/services';
import { expectUnavailable, promptly } from '../support/promptly';
import { newTenant, validLead, type TestTenant } from '../support/stack';
import { waitUntil } from '../support/wait-until';

/**
 * PostgreSQL of its own (so it can be stopped) restarted under a running API process: during the
 * outage every call answers 503 in the envelope promptly, and afterwards the same process serves
 * again, its pool having replaced the dead connections by itself.
 */
let pg: ServiceProcess;
let services: Services;
let tenant: TestTenant;
let databaseUrl: string;

beforeAll(async () => {
  const dataDir = path.join(process.env.TEST_WORK_DIR as string, `pg-restart-${process.pid}`);
  pg = await new ServiceProcess('postgres', { PG_DATA_DIR: dataDir, PG_PORT: String(await freePort()) }).start();
  const url = (pg.output.find((l) => l.startsWith('ready ')) as string).slice('ready '.length);
  databaseUrl = url;
  const db = await initializeDatabase({ url, migrate: true });
  tenant = await newTenant(db);
  await db.destroy();
  services = await startServices({ databaseUrl: url, temporalAddress: process.env.TEST_TEMPORAL_ADDRESS as string });
});

afterAll(async () => {
  await services?.stop();
  await pg?.stop();
});

it('answers 503 promptly while PostgreSQL is down and serves again after its restart without restarting the API', async () => {
  const api = () => request(services.api.baseUrl);
  await api().get('/v1/leads').set(tenant.live).expect(200);
  const pid = services.api.pid;

  await pg.stop();
  expectUnavailable(await promptly('GET /v1/leads', () => api().get('/v1/leads').set(tenant.live)));
  expectUnavailable(await promptly('POST /v1/leads', () => api().post('/v1/leads').set(tenant.live).send(validLead())));
  const ready = await promptly('GET /readyz', () => api().get('/readyz'));
  expect(ready.status).toBe(503);
  expect(ready.body.data).toMatchObject({ database: 'unavailable' });

  await pg.start(); // same data directory and port
  const statuses: number[] = [];
  await waitUntil(async () => {
    const res = await promptly('GET /v1/leads', () => api().get('/v1/leads').set(tenant.live));
    statuses.push(res.status);
    return res.status === 200;
  }, 'the API to serve again');
  expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
  await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201);
  await api().get('/readyz').expect(200);
  expect(services.api.pid).toBe(pid);

  // Another API process revokes the key. Cached keys live 30 s, so a refusal well before that can
  // only come from the notification: this process's key cache must have started listening again.
  const keyHash = hashApiKey(tenant.live['X-API-Key']);
  const other = new Client({ connectionString: databaseUrl });
  await other.connect();
  await other.query(`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE key_hash = $1`, [keyHash]);
  await waitUntil(
    async () => {
      await other.query(`SELECT pg_notify('${REVOCATION_CHANNEL}', $1)`, [keyHash]); // again, until a listener hears it
      return (await api().get('/v1/leads').set(tenant.live)).status === 401;
    },
    'the revoked key to be refused',
    15_000,
  );
  await other.end();
});
