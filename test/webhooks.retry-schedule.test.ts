import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../activities/webhooks';
import type { FirstAttemptInput } from '../activities/webhooks/first-attempt';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { laneTaskQueue } from '../workflows/activity-lanes';
import { WorkerGroup } from '../workers/worker-group';
import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { createTenant } from '../domain/tenants';
import { generateSecret } from '../domain/webhooks/endpoints';
import { emitEvent } from '../domain/webhooks/emit-event';
import { ScopedData } from '../db/scoped-data';
import { eventPayloads } from '../contracts/webhook-events';
import { webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { jitteredDelay, WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_RETRY_JITTER } from '../workflows/webhook-retry-schedule';
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

/** A tenant with one endpoint on the receiver's `hookPath` and `count` events for it. */
async function deliveriesTo(hookPath: string, count: number) {
  const created = await createTenant(db, { name: `Retry tenant ${Date.now()} ${hookPath}`, plan: 'enterprise' });
  const scope = { tenantId: created.tenant.id, environment: 'live' as const };
  const endpoint = await scoped(db.manager, WebhookEndpoint, scope).insert({
    url: receiver.url(hookPath),
    events: ['*'],
    secret: generateSecret(),
    status: 'active',
  });
  const emitted = await db.transaction((m) =>
    Promise.all(
      Array.from({ length: count }, (_, n) =>
        emitEvent(new ScopedData(m, scope), 'lead.deleted', eventPayloads['lead.deleted']({ id: n + 1 })),
      ),
    ),
  );
  const events = emitted.flatMap((e) => (e ? [e] : []));
  expect(events).toHaveLength(count);
  return { scope, endpoint, events };
}

const activityNames = (history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>>) =>
  (history.events ?? []).flatMap((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : e.markerRecordedEventAttributes ? ['(local activity or patch marker)'] : [];
  });

describe('webhook retry schedule (time-skipping)', () => {
  it('tries 8 times on the schedule, marks the deliveries failed and disables an endpoint that only fails', async () => {
    receiver.respond = () => 503;
    const taskQueue = `webhook-retries-${Date.now()}`;
    const { scope, endpoint, events } = await deliveriesTo('/always-503', 2);

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

  it("prepares the row in the first attempt, and shows as the next attempt's time the delay the workflow then waits", async () => {
    const hookPath = '/fails-once';
    let shownAtSecond: Date | null | undefined;
    receiver.respond = async (_n, req) => {
      if (req.path !== hookPath) return 200;
      if (receiver.for(hookPath).length === 1) return 503;
      // The second attempt reads the row before its write: what the first attempt left there.
      shownAtSecond = (await scoped(db.manager, WebhookDelivery, scope).find())[0]?.nextAttemptAt;
      return 200;
    };
    const taskQueue = `webhook-first-${Date.now()}`;
    const { scope, endpoint, events } = await deliveriesTo(hookPath, 1);
    const worker = await timeSkippingWorker(env, taskQueue, { db, webhooks: { allowPrivateTargets: true } });
    const handle = await worker.runUntil(async () => {
      const h = await env.client.workflow.start(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: `webhook/first-${events[0].id}/${endpoint.id}`,
        args: [{ ...scope, eventId: events[0].id, endpointId: endpoint.id }],
      });
      expect(await h.result()).toEqual({ status: 'succeeded', attempts: 2 });
      return h;
    });
    const history = await handle.fetchHistory();
    expect(activityNames(history).filter((n) => !n.startsWith('('))).toEqual([
      'prepareAndAttemptWebhookDelivery',
      'attemptWebhookDelivery',
    ]);
    const [first] = await scoped(db.manager, WebhookDeliveryAttempt, scope).find({ order: { attemptNumber: 'ASC' } });
    const scheduled = history.events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
    const { nextDelayJitter } = JSON.parse(
      Buffer.from(scheduled?.input?.payloads?.[0]?.data as Uint8Array).toString(),
    ) as FirstAttemptInput;
    const timer = history.events?.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes?.startToFireTimeout;
    const waited = Number(timer?.seconds) * 1000 + Math.round((timer?.nanos ?? 0) / 1e6);
    expect(waited).toBe(jitteredDelay(WEBHOOK_RETRY_DELAYS_MS[1], nextDelayJitter));
    // Shown before the POST, logged after it: the two differ by the POST's time, not by a jitter of up to ±500 ms.
    const shownIn = (shownAtSecond as Date).getTime() - first.createdAt.getTime();
    expect(shownIn).toBeGreaterThan(waited - 200);
    expect(shownIn).toBeLessThanOrEqual(waited + 5);
    if (process.env.RECORD_HISTORIES) {
      writeFileSync(
        path.join(__dirname, 'histories', 'webhook-delivery-first-attempt-prepares.json'),
        JSON.stringify(historyToObject(history), null, 1),
      );
    }
  });

  it('delivers through a lane worker from before the first attempt prepared: the workflow prepares on its own and goes on', async () => {
    receiver.respond = () => 200;
    const hookPath = '/old-lane-worker';
    const taskQueue = `webhook-old-lane-${Date.now()}`;
    const { scope, endpoint, events } = await deliveriesTo(hookPath, 1);
    const webhookActivities = createWebhookActivities(db, new WorkflowStarter(env.client, taskQueue), { allowPrivateTargets: true });
    const { prepareWebhookDelivery, failWebhookDelivery, attemptWebhookDelivery } = webhookActivities;
    const common = { connection: env.nativeConnection, namespace: env.namespace ?? 'default' };
    const main = await Worker.create({
      ...common,
      taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE as string },
      activities: { prepareWebhookDelivery, failWebhookDelivery },
    });
    const oldLane = await Worker.create({
      ...common,
      taskQueue: laneTaskQueue(taskQueue, 'webhooks'),
      activities: { attemptWebhookDelivery },
    });
    const handle = await new WorkerGroup([main, oldLane]).runUntil(async () => {
      const h = await env.client.workflow.start(webhookDeliveryWorkflow, {
        taskQueue,
        workflowId: `webhook/old-lane-${events[0].id}/${endpoint.id}`,
        args: [{ ...scope, eventId: events[0].id, endpointId: endpoint.id }],
      });
      expect(await h.result()).toEqual({ status: 'succeeded', attempts: 1 });
      return h;
    });
    const history = await handle.fetchHistory();
    expect((history.events ?? []).some((e) => e.activityTaskFailedEventAttributes)).toBe(true);
    expect(activityNames(history)).toEqual([
      '(local activity or patch marker)', // the patch
      'prepareAndAttemptWebhookDelivery', // not registered on the old worker: fails without the row
      '(local activity or patch marker)', // prepareWebhookDelivery, as a local activity
      'attemptWebhookDelivery',
    ]);
    expect(receiver.for(hookPath)).toHaveLength(1);
    const [delivery] = await scoped(db.manager, WebhookDelivery, scope).find();
    expect([delivery.status, delivery.attempts]).toEqual(['succeeded', 1]);
  });
});
