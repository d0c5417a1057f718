import path from 'node:path';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../../db/data-source';
import { startDevServer, type DevServer } from '../../lib/temporal/dev-server';
import { campaignApi } from '../support/campaign-api';
import { freePort } from '../support/free-port';
import { startServices, type Services } from '../support/processes/services';
import { expectUnavailable, promptly } from '../support/promptly';
import { threeEmails } from '../support/sequences';
import { header, SmtpSink } from '../support/smtp-sink';
import { newTenant, validLead } from '../support/stack';
import { waitUntil } from '../support/wait-until';

/**
 * A Temporal dev server of this scenario's own, stopped mid-campaign and started again on the same
 * SQLite file. While it is down, routes that need it answer 503 promptly and the others keep
 * working; once it is back, the API and the worker reconnect by themselves and the enrollments
 * finish, every email sent once.
 */
const WAIT = { duration: 0.2, durationUnit: 'minutes' as const }; // 12 s: the timers come due during the outage
const LEADS = 3;
const SUBJECTS = ['Welcome, Ada', 'Second note', 'Last note'];

let temporalOptions: Parameters<typeof startDevServer>[0];
let temporal: DevServer;
let db: DataSource;
let sink: SmtpSink;
let services: Services;

beforeAll(async () => {
  temporalOptions = {
    binary: process.env.TEMPORAL_CLI_PATH as string,
    dataDir: path.join(process.env.TEST_WORK_DIR as string, `temporal-restart-${process.pid}`),
    port: await freePort(),
    uiPort: 0,
    namespace: 'default',
    headless: true,
  };
  temporal = await startDevServer(temporalOptions);
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  sink = await new SmtpSink().start();
  services = await startServices({ databaseUrl: process.env.TEST_DB_URL as string, temporalAddress: temporal.address, smtpUrl: sink.url });
});

afterAll(async () => {
  await services?.stop();
  await temporal?.stop();
  await sink?.stop();
  await db?.destroy();
});

it('resumes a campaign after Temporal restarts, answering 503 promptly only where Temporal is needed while it is down', async () => {
  const tenant = await newTenant(db);
  const campaigns = campaignApi(services.api.baseUrl, tenant);
  const api = () => request(services.api.baseUrl);
  const campaign = await campaigns.activeCampaign(threeEmails(WAIT));
  const [late, ...leads] = await campaigns.leads(LEADS + 1);
  await campaigns.enroll(campaign.id, leads).expect(200);
  await waitUntil(async () => leads.every((l) => sink.to(l.email).length === 1), 'every first email');
  const timersDue = Date.now() + 12_000;

  await temporal.stop();
  expectUnavailable(await promptly('enrolling a lead', () => campaigns.enroll(campaign.id, [late])));
  const ready = await promptly('GET /readyz', () => api().get('/readyz'));
  expect({ status: ready.status, data: ready.body.data }).toEqual({ status: 503, data: { database: 'ok', temporal: 'unavailable' } });
  // Records without workflows work as usual; enrollments are listed from the database, without progress.
  await promptly('POST /v1/leads', () => api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201));
  await promptly('GET /v1/leads', () => api().get('/v1/leads').set(tenant.live).expect(200));
  const listed = await promptly('listing enrollments', () => campaigns.enrollments(campaign.id));
  expect(listed.map((e) => [e.status, e.progress])).toEqual(leads.map(() => ['active', null]));
  await new Promise((r) => setTimeout(r, Math.max(0, timersDue - Date.now())));

  temporal = await startDevServer(temporalOptions); // same SQLite file and port
  await waitUntil(
    async () => (await campaigns.enrollments(campaign.id)).every((e) => e.status === 'completed'),
    'every enrollment to complete',
    120_000,
  );
  for (const lead of leads) expect(sink.to(lead.email).map((m) => header(m, 'Subject'))).toEqual(SUBJECTS);
  // The refused enrollment left nothing behind: retrying it now enrolls the lead.
  expect((await campaigns.enroll(campaign.id, [late]).expect(200)).body.data).toEqual([{ leadId: late.id, status: 'enrolled' }]);
});
