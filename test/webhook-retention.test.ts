import { purgeWebhookHistory } from '../domain/webhooks/purge-history';
import { ensureWebhookHistoryPurgeSchedule, webhookHistoryPurgeScheduleId } from '../lib/temporal/webhook-history-purge-schedule';
import { webhookHistoryPurgeWorkflow } from '../workflows/webhook-history-purge';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

let stack: TestStack;
let receiver: WebhookReceiver;
let paths = 0;

beforeAll(async () => {
  stack = await startStack();
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

const DAY_MS = 24 * 3600_000;
const RETENTION = { olderThanMs: 30 * DAY_MS };

/** Creates `n` leads of a tenant subscribed to lead.created and waits until each event was delivered. */
async function deliveredEvents(tenant: TestTenant, n: number): Promise<{ deliveryId: string }[]> {
  const path = `/retention-${++paths}`;
  const webhook = await registerEndpoint(stack.app, tenant, receiver, path, ['lead.created']);
  for (let i = 0; i < n; i++) await stack.http().post('/v1/leads').set(tenant.live).send(validLead()).expect(201);
  await receiver.waitFor(path, n);
  const deliveries = async () =>
    (await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/deliveries`).set(tenant.live).expect(200)).body.data as {
      id: string;
      status: string;
    }[];
  for (let tries = 0; (await deliveries()).filter((d) => d.status === 'succeeded').length < n; tries++) {
    if (tries > 100) throw new Error('deliveries were not recorded as succeeded');
    await new Promise((r) => setTimeout(r, 100));
  }
  return (await deliveries()).map((d) => ({ deliveryId: d.id }));
}

const tenantEvents = (tenant: TestTenant) => stack.db.query('SELECT id FROM events WHERE tenant_id = $1 ORDER BY id', [tenant.tenant.id]);
const ageEvents = (tenant: TestTenant, days: number, where = 'true') =>
  stack.db.query(`UPDATE events SET created_at = now() - make_interval(days => $2) WHERE tenant_id = $1 AND ${where}`, [
    tenant.tenant.id,
    days,
  ]);
const rowsOf = async (tenant: TestTenant) => {
  const [row] = await stack.db.query(
    `SELECT (SELECT count(*)::int FROM events WHERE tenant_id = $1) AS events,
            (SELECT count(*)::int FROM webhook_deliveries WHERE tenant_id = $1) AS deliveries,
            (SELECT count(*)::int FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.tenant_id = $1) AS attempts`,
    [tenant.tenant.id],
  );
  return row as { events: number; deliveries: number; attempts: number };
};

describe('webhook history retention', () => {
  it('deletes events older than the retention with their deliveries and attempts, in batches, and keeps the rest', async () => {
    const tenant = await newTenant(stack.db);
    const delivered = await deliveredEvents(tenant, 3);
    expect(await rowsOf(tenant)).toEqual({ events: 3, deliveries: 3, attempts: 3 });
    await ageEvents(tenant, 31);
    // The youngest of the three stays inside the retention.
    const [youngest] = (await tenantEvents(tenant)).slice(-1);
    await stack.db.query(`UPDATE events SET created_at = now() - interval '29 days' WHERE id = $1`, [youngest.id]);

    expect((await purgeWebhookHistory(stack.db, { ...RETENTION, batchSize: 1, maxBatches: 10 })).deleted).toBeGreaterThanOrEqual(2);
    expect(await rowsOf(tenant)).toEqual({ events: 1, deliveries: 1, attempts: 1 });
    const answers = await Promise.all(
      delivered.map(async (d) => (await stack.http().get(`/v1/integrations/webhooks/deliveries/${d.deliveryId}`).set(tenant.live)).status),
    );
    expect(answers.sort()).toEqual([200, 404, 404]);
  });

  it('keeps an old event still undispatched, or with a delivery still pending', async () => {
    const tenant = await newTenant(stack.db);
    await deliveredEvents(tenant, 2);
    const [first, second] = await tenantEvents(tenant);
    await stack.db.query(`UPDATE webhook_deliveries SET status = 'pending' WHERE event_id = $1`, [first.id]);
    await stack.db.query(`UPDATE events SET dispatched_at = NULL WHERE id = $1`, [second.id]);
    await ageEvents(tenant, 40);

    await purgeWebhookHistory(stack.db, RETENTION);
    expect(await rowsOf(tenant)).toEqual({ events: 2, deliveries: 2, attempts: 2 });
  });

  it('runs as a workflow on the worker, from an hourly schedule that carries the retention', async () => {
    const tenant = await newTenant(stack.db);
    await deliveredEvents(tenant, 1);
    await ageEvents(tenant, 8);
    const result = await stack.client.workflow.execute(webhookHistoryPurgeWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `webhook-history-purge-test-${Date.now()}`,
      args: [{ olderThanMs: 7 * DAY_MS }],
    });
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(tenant)).toEqual({ events: 0, deliveries: 0, attempts: 0 });

    const first = await ensureWebhookHistoryPurgeSchedule(stack.client, stack.taskQueue, 30);
    const again = await ensureWebhookHistoryPurgeSchedule(stack.client, stack.taskQueue, 30);
    const changed = await ensureWebhookHistoryPurgeSchedule(stack.client, stack.taskQueue, 90);
    expect([first.created, again.created, again.updated, changed.updated]).toEqual([true, false, false, true]);
    const handle = stack.client.schedule.getHandle(webhookHistoryPurgeScheduleId(stack.taskQueue));
    const description = await handle.describe();
    expect(description.spec.intervals?.[0].every).toBe(3600_000);
    expect(description.action).toMatchObject({ workflowType: 'webhookHistoryPurgeWorkflow', args: [{ olderThanMs: 90 * DAY_MS }] });
    await handle.delete();
  });
});
