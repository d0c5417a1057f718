import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { laneTaskQueue } from '../workflows/activity-lanes';
import { workflowIds } from '../workflows/ids';
import { webhookSweepWorkflow } from '../workflows/webhook-sweep';
import { newTenant, startStack, validLead, type TestStack } from './support/stack';

let stack: TestStack;
let endpoint: http.Server;
const held: http.ServerResponse[] = [];
let received: (eventId: string) => void;
/** The event ID (webhook-id) of the first attempt that reached this file's endpoint. */
const firstRequest = new Promise<string>((resolve) => (received = resolve));
const HOOK_PATH = `/lanes-hook-${process.pid}-${Date.now()}`;

beforeAll(async () => {
  // One slot on the database queue and one on the webhook lane: if a webhook attempt took the
  // database queue's slot, nothing else could run while the endpoint hangs.
  stack = await startStack({
    worker: { maxConcurrentActivities: 1, lanes: { webhooks: { concurrency: 1 }, sends: { concurrency: 3, perSecond: 5 } } },
  });
  // An endpoint that accepts the connection and never answers (until the test ends).
  endpoint = http.createServer((req, res) => {
    req.resume();
    held.push(res);
    // Only this file's delivery: a port freed by another test file may still be someone's target.
    if (req.url === HOOK_PATH) received(String(req.headers['webhook-id']));
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const res of held) res.end('ok');
  await new Promise((resolve) => endpoint.close(resolve));
  await stack.stop();
});

describe('worker task queues: webhook, send and AI calls on lanes of their own', () => {
  it('a hanging webhook endpoint holds only the webhook lane: database activities run meanwhile', async () => {
    const tenant = await newTenant(stack.db);
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}${HOOK_PATH}`;
    const hook = await stack
      .http()
      .post('/v1/integrations/webhooks')
      .set(tenant.sandbox)
      .send({ url, events: ['lead.created'] });
    expect(hook.status).toBe(201);
    expect((await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).status).toBe(201);
    const eventId = await firstRequest; // the attempt is in flight and will hang for its 30 s timeout

    // The outbox sweep is a database activity on the workflows' queue, whose only slot is free.
    const sweep = stack.client.workflow.execute(webhookSweepWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `lanes-sweep-${Date.now()}`,
      args: [{ minAgeMs: 60_000 }],
    });
    const outcome = await Promise.race([sweep.then(() => 'swept'), new Promise((r) => setTimeout(() => r('blocked'), 15_000))]);
    expect(outcome).toBe('swept');

    // Where the attempt was scheduled: the webhook lane of the workflow's own queue. By its ID: the
    // sweep above may have started other files' leftover deliveries on this queue too.
    const delivery = workflowIds.webhookDelivery(eventId, hook.body.data.id);
    const history = await stack.client.workflow.getHandle(delivery).fetchHistory();
    const attempts = (history.events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => ['prepareAndAttemptWebhookDelivery', 'attemptWebhookDelivery'].includes(a?.activityType?.name ?? ''));
    expect(attempts.map((a) => a?.taskQueue?.name)).toEqual([laneTaskQueue(stack.taskQueue, 'webhooks')]);
  });

  it('each lane has its own worker with the configured slots and provider rate', async () => {
    const queues = stack.worker.workers.map((w) => w.options.taskQueue);
    expect(queues).toEqual([
      stack.taskQueue,
      ...(['webhooks', 'sends', 'ai'] as const).map((lane) => laneTaskQueue(stack.taskQueue, lane)),
    ]);
    const [main, webhooks, sends] = stack.worker.workers;
    expect([main, webhooks, sends].map(activitySlots)).toEqual([1, 1, 3]);
    expect(sends.options.maxTaskQueueActivitiesPerSecond).toBe(5);
    expect(stack.worker.getState()).toBe('RUNNING');
  });
});

const activitySlots = (w: TestStack['worker']['main']) => {
  const supplier = w.options.tuner.activityTaskSlotSupplier;
  return supplier.type === 'fixed-size' ? supplier.numSlots : undefined;
};
