import { writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../api/app';
import { emitEvent } from '../domain/webhooks/emit-event';
import { ScopedData } from '../db/scoped-data';
import { decodeId, encodeId } from '../lib/ids';
import { ensureWebhookSweepSchedule, webhookSweepScheduleId } from '../lib/temporal/webhook-sweep-schedule';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { webhookSweepWorkflow } from '../workflows/webhook-sweep';
import { historyToObject } from './support/history';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

let stack: TestStack;
let receiver: WebhookReceiver;
let paths = 0;

beforeAll(async () => {
  stack = await startStack({ allowPrivateWebhookTargets: true });
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  await receiver.stop();
  await stack.stop();
});

/** A tenant with one sandbox endpoint on its own receiver path. */
async function endpointFor(events: string[] = ['*'], tenant?: TestTenant) {
  const t = tenant ?? (await newTenant(stack.db));
  const hookPath = `/hook-${++paths}`;
  const res = await stack
    .http()
    .post('/v1/integrations/webhooks')
    .set(t.sandbox)
    .send({ url: receiver.url(hookPath), events });
  expect(res.status).toBe(201);
  receiver.secrets.push(res.body.data.secret);
  return { tenant: t, path: hookPath, webhook: res.body.data as { id: string; secret: string } };
}

const deliveryWorkflowId = (eventId: string, webhookId: string) => `webhook/${eventId}/${webhookId}`;

async function runSweep(minAgeMs = 0): Promise<{ dispatched: number }> {
  return stack.client.workflow.execute(webhookSweepWorkflow, {
    taskQueue: stack.taskQueue,
    workflowId: `sweep-${Date.now()}-${Math.random()}`,
    args: [{ minAgeMs }],
  });
}

describe('webhook delivery (API -> outbox -> Temporal -> a real HTTP receiver)', () => {
  it('delivers lead.created, lead.updated and lead.deleted with exactly the spec data fields, signed both ways', async () => {
    const { tenant, path: p, webhook } = await endpointFor(['lead.created', 'lead.updated', 'lead.deleted']);
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.sandbox)
        .send(validLead({ source: 'web' }))
    ).body.data;
    await stack.http().patch(`/v1/leads/${lead.id}`).set(tenant.sandbox).send({ status: 'qualified', score: 0, firstName: 'Ada' });
    await stack.http().delete(`/v1/leads/${lead.id}`).set(tenant.sandbox);
    const got = await receiver.waitFor(p, 3);
    const byType = Object.fromEntries(got.map((r) => [r.body.type, r]));
    expect(byType['lead.created'].body.data).toEqual({ leadId: lead.id, email: lead.email, source: 'web' });
    // score 0 and firstName Ada were already so: only the real change is reported
    expect(byType['lead.updated'].body.data).toEqual({ leadId: lead.id, changes: { status: 'qualified' } });
    expect(byType['lead.deleted'].body.data).toEqual({ leadId: lead.id });
    for (const r of got) {
      expect(Object.keys(r.body).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
      expect(r.body.id).toMatch(/^evt[A-Za-z0-9]{13,14}$/);
      expect(r.serviceVerifiedWith).toEqual([webhook.secret]);
      expect(r.standardVerifiedWith).toEqual([webhook.secret]);
      expect(r.headers['x-service-event-id']).toBe(r.body.id);
      expect(r.headers['webhook-id']).toBe(r.body.id);
      expect(r.headers['x-service-timestamp']).toBe(r.headers['webhook-timestamp']);
    }
  });

  it('sends sandbox events to sandbox endpoints only, and only for subscribed event types', async () => {
    const { tenant, path: p } = await endpointFor(['lead.deleted']);
    const live = (await stack.http().post('/v1/leads').set(tenant.live).send(validLead())).body.data;
    await stack.http().delete(`/v1/leads/${live.id}`).set(tenant.live);
    const sandbox = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    await stack.http().delete(`/v1/leads/${sandbox.id}`).set(tenant.sandbox);
    const got = await receiver.waitFor(p, 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(got.map((r) => [r.body.type, r.body.data.leadId])).toEqual([['lead.deleted', sandbox.id]]);
  });

  it('retries after a 500 with the same event id and logs both attempts', async () => {
    const { tenant, path: p, webhook } = await endpointFor(['lead.created']);
    receiver.respond = (_n, req) => (req.path === p && receiver.for(p).length === 1 ? 500 : 200);
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    const [first, second] = await receiver.waitFor(p, 2, 30_000);
    receiver.respond = () => 200;
    expect(second.body.id).toBe(first.body.id);
    expect(second.rawBody).toBe(first.rawBody);
    expect(first.body.data.leadId).toBe(lead.id);
    const run = stack.client.workflow.getHandle(deliveryWorkflowId(first.body.id, webhook.id));
    await run.result();
    const attributes = (await run.describe()).typedSearchAttributes.getAll().map((a) => [a.key.name, a.value]);
    expect(attributes).toEqual(
      expect.arrayContaining([
        ['TenantId', tenant.id],
        ['Environment', 'sandbox'],
      ]),
    );

    const log = await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/deliveries`).set(tenant.sandbox);
    expect(log.status).toBe(200);
    expect(log.body.pagination.total).toBe(1);
    const delivery = log.body.data[0];
    expect(delivery).toMatchObject({
      eventId: first.body.id,
      eventType: 'lead.created',
      status: 'succeeded',
      attemptCount: 2,
      lastStatusCode: 200,
    });
    const detail = (await stack.http().get(`/v1/integrations/webhooks/deliveries/${delivery.id}`).set(tenant.sandbox)).body.data;
    expect(detail.payload).toEqual(first.body);
    expect(detail.attempts.map((a: { statusCode: number; responseSnippet: string }) => [a.statusCode, a.responseSnippet])).toEqual([
      [500, 'answer 500'],
      [200, 'answer 200'],
    ]);
    expect(detail.attempts[0].error).toBe('Receiver answered HTTP 500');

    if (process.env.RECORD_HISTORIES) {
      const history = await stack.client.workflow.getHandle(deliveryWorkflowId(first.body.id, webhook.id)).fetchHistory();
      writeFileSync(path.join(__dirname, 'histories', 'webhook-delivery.json'), JSON.stringify(historyToObject(history), null, 1));
    }
  });

  it('disables the endpoint at once, with a recorded reason, when the receiver answers 410', async () => {
    const { tenant, path: p, webhook } = await endpointFor();
    receiver.respond = (_n, req) => (req.path === p ? 410 : 200);
    await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    const [got] = await receiver.waitFor(p, 1);
    await stack.client.workflow.getHandle(deliveryWorkflowId(got.body.id, webhook.id)).result();
    receiver.respond = () => 200;
    const endpoint = (await stack.http().get(`/v1/integrations/webhooks/${webhook.id}`).set(tenant.sandbox)).body.data;
    expect(endpoint.status).toBe('disabled');
    expect(endpoint.disabledReason).toMatch(/410/);
    const [delivery] = (await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/deliveries`).set(tenant.sandbox)).body.data;
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: 410 });
    // a disabled endpoint gets nothing more
    await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.for(p)).toHaveLength(1);
  });

  it('signs with both the new and the old secret for 24 hours after a rotation', async () => {
    const { tenant, path: p, webhook } = await endpointFor();
    const rotated = await stack.http().post(`/v1/integrations/webhooks/${webhook.id}/rotate-secret`).set(tenant.sandbox);
    expect(rotated.status).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secret).not.toBe(webhook.secret);
    expect(new Date(previousSecretExpiresAt).getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    receiver.secrets.push(secret);
    expect((await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/secret`).set(tenant.sandbox)).body.data.secret).toBe(secret);

    const test = await stack.http().post(`/v1/integrations/webhooks/${webhook.id}/test`).set(tenant.sandbox);
    expect(test.status).toBe(202);
    const [got] = await receiver.waitFor(p, 1);
    expect(got.body.type).toBe('webhook.test');
    expect(got.body.id).toBe(test.body.data.eventId);
    expect(String(got.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(got.serviceVerifiedWith.sort()).toEqual([secret, webhook.secret].sort());
    expect(got.standardVerifiedWith.sort()).toEqual([secret, webhook.secret].sort());
  });

  it('stores no event that no active endpoint of its environment subscribes to, and stores one as soon as one does', async () => {
    const { tenant, path: p } = await endpointFor(['lead.deleted']);
    const disabled = await stack
      .http()
      .post('/v1/integrations/webhooks')
      .set(tenant.sandbox)
      .send({ url: receiver.url('/disabled'), events: ['*'] })
      .expect(201);
    await stack
      .http()
      .patch(`/v1/integrations/webhooks/${disabled.body.data.id}`)
      .set(tenant.sandbox)
      .send({ status: 'disabled' })
      .expect(200);
    await stack
      .http()
      .post('/v1/integrations/webhooks')
      .set(tenant.live)
      .send({ url: receiver.url('/live'), events: ['*'] })
      .expect(201);
    const storedTypes = async () =>
      (await stack.db.query('SELECT type FROM events WHERE tenant_id = $1 ORDER BY id', [tenant.tenant.id])).map(
        (r: { type: string }) => r.type,
      );

    // The one-statement create, a unit of work's update, the batch create and an engagement event.
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead()).expect(201)).body.data;
    await stack.http().patch(`/v1/leads/${lead.id}`).set(tenant.sandbox).send({ score: 5 }).expect(200);
    await stack
      .http()
      .post('/v1/leads/batch')
      .set(tenant.sandbox)
      .send({ leads: [validLead()] })
      .expect(200);
    const sent = await stack
      .http()
      .post('/v1/communications/send/email')
      .set(tenant.sandbox)
      .send({ to: lead.email, subject: 'Hi', body: 'Hello', leadId: lead.id })
      .expect(200);
    await stack
      .http()
      .post('/v1/analytics/events')
      .set(tenant.sandbox)
      .send({ eventType: 'email_open', messageId: sent.body.data.id })
      .expect(201);
    expect(await storedTypes()).toEqual([]);

    await stack.http().delete(`/v1/leads/${lead.id}`).set(tenant.sandbox).expect(200);
    expect(await storedTypes()).toEqual(['lead.deleted']);
    expect((await receiver.waitFor(p, 1)).map((r) => r.body.type)).toEqual(['lead.deleted']);
    expect([...receiver.for('/disabled'), ...receiver.for('/live')]).toEqual([]);
  });

  it('delivers nothing for a rolled-back transaction', async () => {
    const { tenant, path: p } = await endpointFor();
    const scope = { tenantId: tenant.tenant.id, environment: 'sandbox' as const };
    await expect(
      stack.db.transaction(async (manager) => {
        await emitEvent(new ScopedData(manager, scope), 'lead.deleted', { leadId: encodeId('lead', 1) });
        throw new Error('the change failed after the event was written');
      }),
    ).rejects.toThrow('the change failed');
    await runSweep();
    const rows = await stack.db.query('SELECT count(*)::int AS n FROM events WHERE tenant_id = $1', [tenant.tenant.id]);
    expect(rows[0].n).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.for(p)).toEqual([]);
  });

  it('delivers exactly once through the sweep when the API crashes between commit and workflow start', async () => {
    const { tenant, path: p, webhook } = await endpointFor(['lead.created']);
    // A background queue that takes nothing: the relay is lost as if the process died after the commit.
    const crashing = createApp({
      db: stack.db,
      workflows: new WorkflowStarter(stack.client, stack.taskQueue, { capacity: 0 }),
      webhooks: { allowPrivateTargets: true },
    });
    const lead = (await request(crashing).post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    expect(lead.id).toBeDefined(); // the change itself committed
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.for(p)).toEqual([]);
    const [event] = await stack.db.query('SELECT id, dispatched_at FROM events WHERE tenant_id = $1', [tenant.tenant.id]);
    expect(event.dispatched_at).toBeNull();

    // too young for the default sweep age: left alone, since the relay may still be on its way
    // (the sweep reads every tenant: another test file's leftover events may be old enough)
    await runSweep(60_000);
    expect((await stack.db.query('SELECT dispatched_at FROM events WHERE id = $1', [event.id]))[0].dispatched_at).toBeNull();
    expect((await runSweep()).dispatched).toBeGreaterThanOrEqual(1);
    const eventId = encodeId('event', event.id);
    await stack.client.workflow.getHandle(deliveryWorkflowId(eventId, webhook.id)).result();
    await runSweep();
    // even a duplicate start of the finished delivery sends nothing again
    await stack.client.workflow.execute('webhookDeliveryWorkflow', {
      taskQueue: stack.taskQueue,
      workflowId: deliveryWorkflowId(eventId, webhook.id),
      args: [{ tenantId: tenant.tenant.id, environment: 'sandbox', eventId: event.id, endpointId: decodeId('webhook', webhook.id) }],
    });
    await new Promise((r) => setTimeout(r, 300));
    const got = receiver.for(p);
    expect(got).toHaveLength(1);
    expect(got[0].body).toMatchObject({ id: eventId, type: 'lead.created', data: { leadId: lead.id } });
  });

  it('attempts a pending delivery now on retry, instead of at its next scheduled attempt', async () => {
    const { tenant, path: p, webhook } = await endpointFor(['lead.created']);
    receiver.respond = (_n, req) => (req.path === p && receiver.for(p).length <= 2 ? 500 : 200);
    await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    const [first] = await receiver.waitFor(p, 2, 30_000);
    // After two failures the schedule waits 5 minutes; the receiver is fixed now.
    const log = async () => (await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/deliveries`).set(tenant.sandbox)).body.data[0];
    let delivery = await log();
    for (let i = 0; delivery.attemptCount < 2 && i < 50; i++) delivery = (await new Promise((r) => setTimeout(r, 100)), await log());
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 2 });
    expect(Date.parse(delivery.nextAttemptAt) - Date.now()).toBeGreaterThan(60_000);

    const retry = await stack.http().post(`/v1/integrations/webhooks/deliveries/${delivery.id}/retry`).set(tenant.sandbox);
    expect(retry.status).toBe(202);
    expect(retry.body.message).toBe('Delivery attempt brought forward to now');
    expect(retry.body.data.workflowIds).toEqual([deliveryWorkflowId(first.body.id, webhook.id)]);
    await expect(stack.client.workflow.getHandle(deliveryWorkflowId(first.body.id, webhook.id)).result()).resolves.toEqual({
      status: 'succeeded',
      attempts: 3,
    });
    expect((await receiver.waitFor(p, 3))[2].body.id).toBe(first.body.id);
    expect(await log()).toMatchObject({ status: 'succeeded', attemptCount: 3, lastStatusCode: 200, nextAttemptAt: null });

    if (process.env.RECORD_HISTORIES) {
      const history = await stack.client.workflow.getHandle(deliveryWorkflowId(first.body.id, webhook.id)).fetchHistory();
      writeFileSync(
        path.join(__dirname, 'histories', 'webhook-delivery-attempt-now.json'),
        JSON.stringify(historyToObject(history), null, 1),
      );
    }
  });

  it('keeps a retry asked for while an attempt is in flight: the attempt after it comes at once, not at the next scheduled time', async () => {
    const { tenant, path: p, webhook } = await endpointFor(['lead.created']);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The second attempt hangs until the retry is in, then fails as the first did; the third succeeds.
    receiver.respond = async (_n, req) => {
      if (req.path !== p) return 200;
      const n = receiver.for(p).length;
      if (n === 2) await released;
      return n <= 2 ? 500 : 200;
    };
    await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    const [first] = await receiver.waitFor(p, 2, 30_000);
    const [delivery] = (await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/deliveries`).set(tenant.sandbox)).body.data;
    const retry = await stack.http().post(`/v1/integrations/webhooks/deliveries/${delivery.id}/retry`).set(tenant.sandbox);
    expect([retry.status, retry.body.message]).toEqual([202, 'Delivery attempt brought forward to now']);
    release();
    const run = stack.client.workflow.getHandle(deliveryWorkflowId(first.body.id, webhook.id));
    await expect(run.result()).resolves.toEqual({ status: 'succeeded', attempts: 3 });

    if (process.env.RECORD_HISTORIES) {
      const history = await run.fetchHistory();
      writeFileSync(
        path.join(__dirname, 'histories', 'webhook-delivery-attempt-now-in-flight.json'),
        JSON.stringify(historyToObject(history), null, 1),
      );
    }
  });

  it('re-sends one delivery on retry and all failed ones since a time on recover', async () => {
    const { tenant, path: p, webhook } = await endpointFor(['lead.created']);
    receiver.respond = (_n, req) => (req.path === p ? 400 : 200);
    const since = new Date(Date.now() - 1000).toISOString();
    await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    const [first] = await receiver.waitFor(p, 1);
    // a 400 is retried on the schedule; give up on it now by cancelling the run, as an operator could
    const handle = stack.client.workflow.getHandle(deliveryWorkflowId(first.body.id, webhook.id));
    await handle.terminate('test: stop the schedule');
    await stack.db.query("UPDATE webhook_deliveries SET status = 'failed' WHERE event_id = $1", [
      (await stack.db.query('SELECT id FROM events WHERE tenant_id = $1', [tenant.tenant.id]))[0].id,
    ]);
    receiver.respond = () => 200;

    const list = await stack.http().get(`/v1/integrations/webhooks/${webhook.id}/deliveries?status=failed`).set(tenant.sandbox);
    expect(list.body.data).toHaveLength(1);
    const deliveryId = list.body.data[0].id;
    const retry = await stack.http().post(`/v1/integrations/webhooks/deliveries/${deliveryId}/retry`).set(tenant.sandbox);
    expect(retry.status).toBe(202);
    await stack.client.workflow.getHandle(retry.body.data.workflowIds[0]).result();
    const retried = await receiver.waitFor(p, 2);
    expect(retried[1].body.id).toBe(first.body.id);
    const detail = (await stack.http().get(`/v1/integrations/webhooks/deliveries/${deliveryId}`).set(tenant.sandbox)).body.data;
    expect(detail).toMatchObject({ status: 'succeeded', attemptCount: 2 });

    await stack.db.query("UPDATE webhook_deliveries SET status = 'failed' WHERE endpoint_id = $1", [decodeId('webhook', webhook.id)]);
    // Recover answers 202 with an operation; its workflow re-sends the failed deliveries.
    const recovered = await stack.http().post(`/v1/integrations/webhooks/${webhook.id}/recover`).set(tenant.sandbox).send({ since });
    expect(recovered.status).toBe(202);
    expect(recovered.body.data).toMatchObject({ type: 'webhook.recover', status: 'running', total: 1, webhookId: webhook.id });
    await stack.client.workflow.getHandle(recovered.body.data.workflowId).result();
    const operation = await stack.http().get(`/v1/operations/${recovered.body.data.id}`).set(tenant.sandbox);
    expect(operation.body.data).toMatchObject({ status: 'succeeded', total: 1, processed: 1 });
    await receiver.waitFor(p, 3);
    const future = await stack
      .http()
      .post(`/v1/integrations/webhooks/${webhook.id}/recover`)
      .set(tenant.sandbox)
      .send({ since: new Date(Date.now() + 60_000).toISOString() });
    expect(future.body.data).toMatchObject({ type: 'webhook.recover', total: 0 });

    const filtered = await stack
      .http()
      .get(`/v1/integrations/webhooks/${webhook.id}/deliveries?eventType=lead.updated`)
      .set(tenant.sandbox);
    expect(filtered.body.data).toEqual([]);
  });

  it('creates the every-minute sweep schedule idempotently', async () => {
    const first = await ensureWebhookSweepSchedule(stack.client, stack.taskQueue);
    const again = await ensureWebhookSweepSchedule(stack.client, stack.taskQueue);
    expect([first.created, again.created]).toEqual([true, false]);
    const handle = stack.client.schedule.getHandle(webhookSweepScheduleId(stack.taskQueue));
    const description = await handle.describe();
    expect(description.spec.intervals?.[0].every).toBe(60_000);
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'webhookSweepWorkflow', taskQueue: stack.taskQueue });
    await handle.delete();
  });

  it('updates the existing sweep schedule when its interval or settings change (a redeploy), and only then', async () => {
    const handle = stack.client.schedule.getHandle(webhookSweepScheduleId(stack.taskQueue));
    await ensureWebhookSweepSchedule(stack.client, stack.taskQueue);
    const changed = await ensureWebhookSweepSchedule(stack.client, stack.taskQueue, { everyMs: 300_000, minAgeMs: 1234 });
    const same = await ensureWebhookSweepSchedule(stack.client, stack.taskQueue, { everyMs: 300_000, minAgeMs: 1234 });
    expect([changed, same].map((r) => [r.created, r.updated])).toEqual([
      [false, true],
      [false, false],
    ]);
    const description = await handle.describe();
    expect(description.spec.intervals?.map((i) => i.every)).toEqual([300_000]);
    expect(description.action.args).toEqual([{ minAgeMs: 1234 }]);
    await handle.delete();
  });
});
