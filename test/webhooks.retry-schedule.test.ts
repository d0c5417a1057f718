import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { createTenant } from '../domain/tenants';
import { generateSecret } from '../domain/webhooks/endpoints';
import { emitEvent } from '../domain/webhooks/emit-event';
import { ScopedData } from '../db/scoped-data';
import { eventPayloads } from '../contracts/webhook-events';
import { WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_RETRY_JITTER, webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { historyToObject } from './support/history';
import { WebhookReceiver } from './support/webhook-receiver';
import { startTimeSkipping, timeSkippingWorker } from './support/time-skipping';

/**
 * The whole ~28 h retry schedule in seconds of test time: the time-skipping test server jumps over
 * the durable sleeps. It rejects custom search attributes, so workflows start directly on its
 * client instead of through WorkflowStarter.
 */
let env: TestWorkflowEnvironment;
let db: DataSource;
let receiver: WebhookReceiver;

beforeAll(async () => {
  env = await startTimeSkipping();
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 3 });
  receiver = await new WebhookReceiver().start();
}, 120_000);
afterAll(async () => {
  await receiver?.stop();
  await db?.destroy();
  await env?.teardown();
});

describe('webhook retry schedule (time-skipping)', () => {
  it('tries 8 times on the schedule, marks the deliveries failed and disables an endpoint that only fails', async () => {
    receiver.respond = () => 503;
    const taskQueue = `webhook-retries-${Date.now()}`;
    const created = await createTenant(db, { name: `Retry tenant ${Date.now()}`, plan: 'enterprise' });
    const scope = { tenantId: created.tenant.id, environment: 'live' as const };
    const endpoint = await scoped(db.manager, WebhookEndpoint, scope).insert({
      url: receiver.url('/always-503'),
      events: ['*'],
      secret: generateSecret(),
      status: 'active',
    });
    const emitted = await db.transaction((m) =>
      Promise.all([1, 2].map((n) => emitEvent(new ScopedData(m, scope), 'lead.deleted', eventPayloads['lead.deleted']({ id: n })))),
    );
    const events = emitted.flatMap((e) => (e ? [e] : []));
    expect(events).toHaveLength(2);

    const worker = await timeSkippingWorker(env, taskQueue, { db, webhooks: { allowPrivateTargets: true, autoDisableAfter: 2 } });
    const handles = await worker.runUntil(async () => {
      const hs = await Promise.all(
        events.map((e) =>
          env.client.workflow.start(webhookDeliveryWorkflow, {
            taskQueue,
            workflowId: `webhook/retry-test-${e.id}/${endpoint.id}`,
            args: [{ ...scope, eventId: e.id, endpointId: endpoint.id }],
          }),
        ),
      );
      for (const h of hs) expect(await h.result()).toEqual({ status: 'failed', attempts: 8 });
      return hs;
    });

    expect(receiver.for('/always-503')).toHaveLength(16);
    const deliveries = await scoped(db.manager, WebhookDelivery, scope).find({ order: { id: 'ASC' } });
    expect(deliveries.map((d) => [d.status, d.attempts, d.lastStatusCode, d.nextAttemptAt])).toEqual([
      ['failed', 8, 503, null],
      ['failed', 8, 503, null],
    ]);
    const attempts = await scoped(db.manager, WebhookDeliveryAttempt, scope).find({ where: { deliveryId: deliveries[0].id } });
    expect(attempts.map((a) => a.attemptNumber).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const disabled = await scoped(db.manager, WebhookEndpoint, scope).findById(endpoint.id);
    expect(disabled?.status).toBe('disabled');
    expect(disabled?.disabledReason).toMatch(/last 2 deliveries failed/);

    // The sleeps between attempts follow the schedule, each within its jitter.
    const history = await handles[0].fetchHistory();
    const timers = (history.events ?? [])
      .map((e) => e.timerStartedEventAttributes?.startToFireTimeout)
      .filter((t): t is NonNullable<typeof t> => !!t)
      .map((t) => Number(t.seconds) * 1000 + Math.round((t.nanos ?? 0) / 1e6));
    const expected = WEBHOOK_RETRY_DELAYS_MS.slice(1);
    expect(timers).toHaveLength(expected.length);
    timers.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(expected[i] * (1 - WEBHOOK_RETRY_JITTER) - 1);
      expect(ms).toBeLessThanOrEqual(expected[i] * (1 + WEBHOOK_RETRY_JITTER) + 1);
    });
    if (process.env.RECORD_HISTORIES) {
      writeFileSync(
        path.join(__dirname, 'histories', 'webhook-delivery-exhausted.json'),
        JSON.stringify(historyToObject(history), null, 1),
      );
    }
  }, 180_000);
});
