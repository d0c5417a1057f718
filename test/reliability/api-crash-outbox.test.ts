import request from 'supertest';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../../db/data-source';
import { decodeId } from '../../lib/ids';
import { startServices, type Services } from '../support/processes/services';
import { triggeredCampaign } from '../support/campaign-api';
import { newTenant, validLead } from '../support/stack';
import { waitUntil } from '../support/wait-until';
import { registerEndpoint } from '../support/webhook-api';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The API is killed after a change and its outbox event committed and the request answered, before
 * it started the delivery workflow and the lead's automatic enrollment in the background
 * (TEST_BACKGROUND_START_DELAY_MS holds them in that window). Nothing committed is lost: the
 * periodic sweeps, shortened here to every 2 s, start the delivery and the enrollment, and each
 * happens once.
 */
let db: DataSource;
let receiver: WebhookReceiver;
let services: Services;

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  receiver = await new WebhookReceiver().start();
  services = await startServices(
    {
      databaseUrl: process.env.TEST_DB_URL as string,
      temporalAddress: process.env.TEST_TEMPORAL_ADDRESS as string,
      env: {
        WEBHOOK_SWEEP_INTERVAL_MS: '2000',
        WEBHOOK_SWEEP_MIN_AGE_MS: '1000',
        AUTO_ENROLL_SWEEP_INTERVAL_MS: '2000',
        AUTO_ENROLL_SWEEP_MIN_AGE_MS: '1000',
      },
    },
    { TEST_BACKGROUND_START_DELAY_MS: '600000' },
  );
});

afterAll(async () => {
  await services?.stop();
  await receiver?.stop();
  await db?.destroy();
});

const undispatchedEvent = async (tenantId: string) =>
  (await db.query(`SELECT id, dispatched_at FROM events WHERE tenant_id = $1 AND type = 'lead.created'`, [tenantId]))[0] as
    { id: string; dispatched_at: Date | null } | undefined;

it('delivers the event, and makes the enrollment, of a change whose API process died before it started either: once, through the sweeps', async () => {
  const tenant = await newTenant(db);
  await registerEndpoint(services.api.baseUrl, tenant, receiver, '/crash', ['lead.created']);
  const campaign = await triggeredCampaign(() => request.agent(services.api.baseUrl), tenant.live, 'lead_created', 'Welcome');

  // The request answers once the lead is committed; its background starts are held until the kill.
  const lead = validLead();
  const created = await request(services.api.baseUrl).post('/v1/leads').set(tenant.live).send(lead).expect(201);
  const tenantKey = decodeId('tenant', tenant.id) as string;
  const event = await undispatchedEvent(tenantKey);
  if (!event) throw new Error('the lead.created event was not committed with the lead');
  // Written by the lead's own statement: there with the event, whatever the process does next.
  expect(await db.query('SELECT trigger FROM pending_enrollments WHERE tenant_id = $1', [tenantKey])).toEqual([
    { trigger: 'lead_created' },
  ]);
  await services.api.kill();
  expect(event.dispatched_at).toBeNull();
  expect(await db.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [event.id])).toHaveLength(0);

  const [delivery] = await receiver.waitFor('/crash', 1, 30_000);
  expect(delivery.body).toMatchObject({ type: 'lead.created', data: { email: lead.email } });
  expect(delivery.serviceVerifiedWith).toHaveLength(1);
  await waitUntil(async () => (await undispatchedEvent(tenantKey))?.dispatched_at, 'the sweep to mark the event dispatched');
  const succeeded = `SELECT status FROM webhook_deliveries WHERE event_id = $1`;
  await waitUntil(async () => (await db.query(succeeded, [event.id]))[0]?.status === 'succeeded', 'the delivery to be recorded');
  // One delivery row for the event, and the receiver saw one request: no second start sent it again.
  expect(await db.query(succeeded, [event.id])).toEqual([{ status: 'succeeded' }]);
  expect(receiver.for('/crash')).toHaveLength(1);

  // The enrollment the lead's creation recorded with it: made by the auto-enroll sweep, once.
  const enrollments = `SELECT lead_id FROM campaign_enrollments WHERE campaign_id = $1 AND lead_id = $2`;
  const campaignKey = decodeId('campaign', campaign.id);
  await waitUntil(
    async () => (await db.query(enrollments, [campaignKey, decodeId('lead', created.body.data.id)])).length > 0,
    'the sweep to enroll the lead',
  );
  await waitUntil(
    async () => (await db.query('SELECT 1 FROM pending_enrollments WHERE tenant_id = $1', [tenantKey])).length === 0,
    'the pending enrollment to be removed',
  );
  expect(await db.query(enrollments, [campaignKey, decodeId('lead', created.body.data.id)])).toHaveLength(1);
});
