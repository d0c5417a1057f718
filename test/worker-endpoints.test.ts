/** `npm run worker`'s own HTTP endpoints, on the real entry point in a child process. */
import { deleteSweepSchedules } from './support/processes/services';
import { ServiceProcess } from './support/processes/service-process';
import { freePort } from './support/free-port';

const taskQueue = `worker-endpoints-${process.pid}-${Date.now()}`;
let worker: ServiceProcess;
let base: string;
beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  worker = new ServiceProcess('worker', {
    DATABASE_URL: process.env.TEST_DB_URL as string,
    TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS as string,
    TEMPORAL_TASK_QUEUE: taskQueue,
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE as string,
    WORKER_HTTP_PORT: String(port),
    TEMPORAL_SDK_METRICS_ADDRESS: `127.0.0.1:${await freePort()}`,
  });
  await worker.start();
}, 120_000);
afterAll(async () => {
  await worker.stop();
  await deleteSweepSchedules(process.env.TEST_TEMPORAL_ADDRESS as string, taskQueue);
});

describe('worker HTTP endpoints', () => {
  it('/healthz says the worker polls and its database answers', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ worker: 'RUNNING', database: 'ok' });
  });

  it('/metrics serves the process metrics and the Temporal SDK worker metrics in one scrape', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toMatch(/^process_cpu_user_seconds_total /m);
    // Slots and schedule-to-start latency come from the SDK's exporter, labelled with this task queue.
    expect(body).toMatch(new RegExp(`^temporal_worker_task_slots_available\\{.*task_queue="${taskQueue}"`, 'm'));
  });
});
