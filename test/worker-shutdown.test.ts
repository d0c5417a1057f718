/** `npm run worker` stopped by SIGTERM (a deploy, a scale-down) while an activity runs. */
import { Client, Connection } from '@temporalio/client';
import { startFakeOpenAi, type FakeOpenAi } from './support/fake-openai';
import { deleteSweepSchedules } from './support/processes/services';
import { ServiceProcess } from './support/processes/service-process';
import { waitUntil } from './support/wait-until';

const taskQueue = `worker-shutdown-${process.pid}-${Date.now()}`;
const address = process.env.TEST_TEMPORAL_ADDRESS as string;
let fake: FakeOpenAi;
let connection: Connection;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  connection = await Connection.connect({ address });
});
afterAll(async () => {
  await connection.close();
  await fake.close();
  await deleteSweepSchedules(address, taskQueue);
});

it('lets an in-flight activity finish within the grace time on SIGTERM instead of cancelling it', async () => {
  // WORKER_SHUTDOWN_GRACE_MS is left at its default: that is what a deploy gets.
  const worker = await new ServiceProcess('worker', {
    DATABASE_URL: process.env.TEST_DB_URL as string,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE as string,
    AI_API_KEY: 'sk-test',
    AI_BASE_URL: fake.baseUrl,
    AI_MODEL: 'fake-model',
  }).start();
  // The model answers 2 s after the request: the SIGTERM lands while the activity waits for it.
  fake.script([{ status: 200, content: '{}', delayMs: 2000 }]);
  const client = new Client({ connection });
  const handle = await client.workflow.start('aiGenerationWorkflow', {
    taskQueue,
    workflowId: `worker-shutdown-${Date.now()}`,
    args: [{ kind: 'statuses', input: { prompt: 'Statuses for a bakery' } }],
  });
  try {
    await waitUntil(async () => fake.requests.length === 1, 'the model request');
    await worker.stop();
    expect(worker.exitCode).toBe(0);
    const events = (await handle.fetchHistory()).events ?? [];
    // Completed by the draining worker; cancelled, it would only be retried once a new worker polls.
    expect(events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(1);
  } finally {
    await handle.terminate('test over').catch(() => undefined);
  }
});
