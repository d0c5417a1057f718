import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../../db/data-source';
import { Tenant } from '../../db/entities';
import { migrations } from '../../db/migrations';
import { campaignApi, type Lead } from '../support/campaign-api';
import { freePort } from '../support/free-port';
import { MOTO_CREDENTIALS, startMotoS3, type MotoS3 } from '../support/moto-server';
import { deleteSweepSchedules } from '../support/processes/services';
import { runScript, ServiceProcess } from '../support/processes/service-process';
import { threeEmails } from '../support/sequences';
import { header, SmtpSink } from '../support/smtp-sink';
import { newTenant, validLead, type TestTenant } from '../support/stack';
import { waitUntil } from '../support/wait-until';
import { registerEndpoint } from '../support/webhook-api';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * Two API processes and two workers (the real entry points) on one PostgreSQL and one Temporal
 * server, after two migration runs raced on a fresh database: through both APIs at once they must
 * behave like one service.
 */
const WAIT = { duration: 0.2, durationUnit: 'minutes' as const }; // 12 s: time to kill a worker inside it
const SUBJECTS = ['Welcome, Ada', 'Second note', 'Last note'];
const dbName = `reliability_multi_${process.pid}_${Date.now()}`;
const taskQueue = `reliability-multi-${process.pid}-${Date.now()}`;

let databaseUrl: string;
let db: DataSource;
let moto: MotoS3;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let apis: ServiceProcess[];
let workers: ServiceProcess[];
let migrateRuns: { code: number | null; stderr: string }[];

beforeAll(async () => {
  const adminUrl = process.env.TEST_DB_ADMIN_URL as string;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  databaseUrl = url.toString();
  [moto, sink, receiver] = await Promise.all([startMotoS3('multi-process-files'), new SmtpSink().start(), new WebhookReceiver().start()]);

  // Every process shares these, as replicas of one deployment do (ID_SECRET above all: IDs must decode everywhere).
  const env = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS as string,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE as string,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    IP_RATE_LIMIT_PER_MINUTE: '1000000',
    SMTP_URL: sink.url,
    // Production refuses live email without an https public address; this test follows no tracking link.
    PUBLIC_BASE_URL: 'https://multi-process.test',
    ID_SECRET: randomBytes(24).toString('hex'),
    JWT_SECRET: randomBytes(24).toString('hex'),
    TRACKING_SECRET: randomBytes(24).toString('hex'),
    FILE_URL_SECRET: randomBytes(24).toString('hex'),
    DKIM_KEY_SECRET: randomBytes(24).toString('hex'),
    FILES_DRIVER: 's3',
    S3_BUCKET: moto.bucket,
    S3_ENDPOINT: moto.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
  };
  // Both APIs' deploys migrate at the same moment on the fresh database (npm run db:migrate, twice at once).
  migrateRuns = await Promise.all([1, 2].map(() => runScript('scripts/migrate.ts', [], { ...env, NODE_ENV: 'production' })));
  apis = [
    new ServiceProcess('api', { ...env, PORT: String(await freePort()) }),
    new ServiceProcess('api', { ...env, PORT: String(await freePort()) }),
  ];
  workers = [new ServiceProcess('worker', env), new ServiceProcess('worker', env)];
  await Promise.all([...apis, ...workers].map((p) => p.start()));
  db = await initializeDatabase({ url: databaseUrl, poolSize: 2 });
}, 240_000);

afterAll(async () => {
  await Promise.all([...(apis ?? []), ...(workers ?? [])].map((p) => p.stop()));
  await deleteSweepSchedules(process.env.TEST_TEMPORAL_ADDRESS as string, taskQueue);
  await db?.destroy();
  await Promise.all([moto?.stop(), sink?.stop(), receiver?.stop()]);
  const admin = new Client({ connectionString: process.env.TEST_DB_ADMIN_URL as string });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

const http = (i: number) => request(apis[i % 2].baseUrl);

async function limitedTenant(perMinute: number): Promise<TestTenant> {
  const t = await newTenant(db, 'enterprise');
  await db.getRepository(Tenant).update({ id: t.tenant.id }, { customLimits: { monthlyCalls: 1_000_000, perMinute, burst: 1000 } });
  return t;
}

describe('two APIs and two workers behave like one service', () => {
  it('migrated once although two runs raced on the fresh database', async () => {
    expect(migrateRuns.map((r) => [r.code, r.stderr.trim()])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    const rows: { name: string; n: number }[] = await db.query('SELECT name, count(*)::int AS n FROM migrations GROUP BY name');
    expect(rows).toHaveLength(migrations.length);
    expect(rows.every((r) => r.n === 1)).toBe(true);
  });

  it('keeps a per-tenant rate limit exact across both APIs under concurrent load', async () => {
    if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    const t = await limitedTenant(10);
    const statuses = (await Promise.all(Array.from({ length: 24 }, (_, i) => http(i).get('/v1/leads').set(t.sandbox)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(14);
  });

  it('refuses a key revoked through API 1 on API 2 within a second', async () => {
    const t = await newTenant(db);
    const key = (await http(0).post('/v1/api-keys').set(t.live).send({ name: 'to revoke' }).expect(201)).body.data;
    await http(1).get('/v1/leads').set('X-API-Key', key.fullKey).expect(200); // now cached on API 2
    await http(0).delete(`/v1/api-keys/${key.id}`).set(t.live).expect(200);
    const revokedAt = Date.now();
    await waitUntil(
      async () => (await http(1).get('/v1/leads').set('X-API-Key', key.fullKey)).status === 401,
      'API 2 to refuse the key',
      5000,
    );
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it('lists leads created alternately through both APIs in creation order', async () => {
    const t = await newTenant(db);
    const created: string[] = [];
    for (let i = 0; i < 8; i++) created.push((await http(i).post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data.id);
    const newestFirst = (await http(0).get('/v1/leads?limit=100').set(t.live).expect(200)).body.data.map((l: Lead) => l.id);
    const oldestFirst = (await http(1).get('/v1/leads?limit=100&sort=createdAt:asc').set(t.live).expect(200)).body.data.map(
      (l: Lead) => l.id,
    );
    expect(oldestFirst).toEqual(created);
    expect(newestFirst).toEqual([...created].reverse());
  });

  it('serves files uploaded through one API from the other (S3)', async () => {
    const t = await newTenant(db);
    const uploaded = await http(0)
      .post('/v1/files/upload')
      .set(t.sandbox)
      .attach('file', Buffer.from('uploaded via api 1'), { filename: 'one.txt', contentType: 'text/plain' })
      .expect(201);
    const content = await http(1).get(`/v1/files/${uploaded.body.data.id}/content`).set(t.sandbox).buffer(true);
    expect([content.status, content.text]).toEqual([200, 'uploaded via api 1']);

    const started = (
      await http(1).post('/v1/files/uploads').set(t.sandbox).send({ fileName: 'two.txt', contentType: 'text/plain', size: 18 }).expect(201)
    ).body.data;
    const put = await fetch(started.upload.url, {
      method: started.upload.method,
      headers: started.upload.headers,
      body: 'uploaded via api 2',
    });
    expect(put.status).toBe(200);
    await http(0).post(`/v1/files/${started.id}/complete`).set(t.sandbox).expect(200);
    const link = (await http(0).get(`/v1/files/${started.id}/download-url`).set(t.sandbox).expect(200)).body.data;
    expect(await (await fetch(link.url)).text()).toBe('uploaded via api 2');
  });

  it('sends each email once and delivers each webhook once while one of the two workers is SIGKILLed', async () => {
    const t = await newTenant(db);
    await registerEndpoint(apis[1].baseUrl, t, receiver, '/multi', ['lead.created']);
    const api = campaignApi(apis[0].baseUrl, t);
    const campaign = await api.activeCampaign(threeEmails(WAIT));
    const leads = await api.leads(3);
    await http(1)
      .post(`/v1/campaigns/${campaign.id}/enrollments`)
      .set(t.live)
      .send({ leadIds: leads.map((l) => l.id) })
      .expect(200);
    await waitUntil(async () => {
      const list = await api.enrollments(campaign.id);
      return list.length === leads.length && list.every((e) => e.progress?.currentNodeId === 'wait-1');
    }, 'every enrollment to sleep in wait-1');
    await waitUntil(async () => receiver.received.filter((r) => r.path === '/multi').length >= 3, 'the first three webhooks');

    await workers[0].kill();
    const late = (await http(0).post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data as Lead;

    await waitUntil(
      async () => (await api.enrollments(campaign.id)).every((e) => e.status === 'completed'),
      'every enrollment to complete on the surviving worker',
      90_000,
    );
    for (const lead of leads) expect(sink.to(lead.email).map((m) => header(m, 'Subject'))).toEqual(SUBJECTS);
    await waitUntil(
      async () => receiver.received.some((r) => r.body.data.leadId === late.id),
      'the webhook for the lead created after the kill',
    );
    await new Promise((r) => setTimeout(r, 2000)); // a duplicate would arrive within this
    const deliveries = receiver.received.filter((r) => r.path === '/multi');
    const leadIds = deliveries.map((r) => r.body.data.leadId as string).sort();
    expect(leadIds).toEqual([...leads.map((l) => l.id), late.id].sort());
  });
});
