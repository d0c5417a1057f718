import request from 'supertest';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../../db/data-source';
import { decodeId } from '../../lib/ids';
import { startServices, type Services } from '../support/processes/services';
import { newTenant, validLead } from '../support/stack';
import { waitUntil } from '../support/wait-until';
import { registerEndpoint } from '../support/webhook-api';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * A receiver that is down (connections refused), then comes back but fails once more per event
 * before it recovers. Every event still arrives, both signatures verify on every attempt, and
 * retries carry the same webhook id so the receiver can de-duplicate. The ~28 h production schedule
 * is replaced through WEBHOOK_RETRY_DELAYS_MS (the workflow gets it from an activity result).
 */
const RETRY_DELAYS_MS = [0, 1000, 2000, 2000, 2000, 2000, 2000, 2000];
const EVENTS = 3;

let db: DataSource;
let receiver: WebhookReceiver;
let services: Services;

beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  receiver = await new WebhookReceiver().start();
  services = await startServices({
    databaseUrl: process.env.TEST_DB_URL as string,
    temporalAddress: process.env.TEST_TEMPORAL_ADDRESS as string,
    env: { WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS_MS.join(',') },
  });
});

afterAll(async () => {
  await services?.stop();
  await receiver?.stop();
  await db?.destroy();
});

/** Failed attempts recorded per delivery of the tenant, keyed by event. */
const failedAttempts = async (tenantId: string): Promise<number[]> =>
  (
    await db.query(
      `SELECT count(a.id) FILTER (WHERE a.error IS NOT NULL)::int AS failed FROM webhook_deliveries d
        LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id WHERE d.tenant_id = $1 GROUP BY d.id`,
      [tenantId],
    )
  ).map((r: { failed: number }) => r.failed);

it('delivers every event once the receiver is back, signed both ways, with the same webhook id on every retry', async () => {
  const tenant = await newTenant(db);
  const tenantKey = decodeId('tenant', tenant.id) as string;
  await registerEndpoint(services.api.baseUrl, tenant, receiver, '/outage', ['lead.created']);
  const port = receiver.port;
  await receiver.stop();

  const leads = [];
  for (let i = 0; i < EVENTS; i++)
    leads.push((await request(services.api.baseUrl).post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data);
  await waitUntil(async () => {
    const failed = await failedAttempts(tenantKey);
    return failed.length === EVENTS && failed.every((n) => n >= 2);
  }, 'two refused attempts per event');

  // Back up, but still failing the first request of each event: the receiver sees a retry.
  const answered = new Set<string>();
  receiver.respond = (n) => {
    const id = receiver.received[n - 1].body.id;
    if (answered.has(id)) return 200;
    answered.add(id);
    return 503;
  };
  await receiver.start(port);
  const received = await receiver.waitFor('/outage', 2 * EVENTS, 30_000);

  const ids = [...new Set(received.map((r) => r.body.id))];
  expect(ids).toHaveLength(EVENTS);
  expect(received.map((r) => r.body.data.email).sort()).toEqual(leads.flatMap((l) => [l.email, l.email]).sort());
  for (const id of ids) {
    const attempts = received.filter((r) => r.body.id === id);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt.headers['webhook-id']).toBe(id);
      expect(attempt.headers['x-service-event-id']).toBe(id);
      expect(attempt.serviceVerifiedWith).toHaveLength(1);
      expect(attempt.standardVerifiedWith).toHaveLength(1);
    }
  }
  await waitUntil(
    async () =>
      (await db.query(`SELECT 1 FROM webhook_deliveries WHERE tenant_id = $1 AND status = 'succeeded'`, [tenantKey])).length === EVENTS,
    'every delivery to be recorded as succeeded',
  );
});
