/**
 * `npm run worker`: a production-style worker against external PostgreSQL and Temporal
 * (DATABASE_URL and TEMPORAL_ADDRESS). Scale by running more of these.
 */
import { NativeConnection } from '@temporalio/worker';
import { initializeWorkerDatabase } from '../db/worker-pool';
import { config } from '../lib/config';
import { logger } from '../lib/logger';
import { registerSearchAttributes } from '../lib/temporal/register-search-attributes';
import { Connection } from '@temporalio/client';
import { aiSettingsFromConfig } from '../activities/ai/settings';
import { connectTemporalClient } from '../lib/temporal/client';
import { temporalConnectionOptions } from '../lib/temporal/connection-options';
import { TASK_QUEUE } from '../lib/temporal/task-queues';
import { ensureWorkerSchedules } from './ensure-schedules';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createWorker } from './create-worker';
import { serveWorkerEndpoints } from './http-endpoints';
import { installWorkerRuntime } from './runtime';
import { WORKER_READY } from './parent-channel';

async function main(): Promise<void> {
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run worker needs DATABASE_URL and TEMPORAL_ADDRESS; for a self-contained dev stack use npm start');
  }
  installWorkerRuntime();
  const db = await initializeWorkerDatabase(config.DATABASE_URL, config);
  const admin = await Connection.connect(temporalConnectionOptions(config.TEMPORAL_ADDRESS));
  await registerSearchAttributes(admin, config.TEMPORAL_NAMESPACE);
  await admin.close();
  const client = await connectTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  await ensureWorkerSchedules(client, TASK_QUEUE, config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.TEMPORAL_ADDRESS));
  const deps = {
    db,
    workflows: new WorkflowStarter(client),
    webhooks: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS },
    ai: aiSettingsFromConfig(config),
  };
  const workflowBundle = config.WORKFLOW_BUNDLE_PATH ? { codePath: config.WORKFLOW_BUNDLE_PATH } : undefined;
  const worker = await createWorker({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    deps,
    workflowBundle,
    maxConcurrentActivities: config.WORKER_DB_POOL_SIZE,
  });
  const drain = (reason: string) => {
    if (worker.getState() !== 'RUNNING') return; // SIGINT then SIGTERM: already draining
    logger.info({ reason }, 'worker draining');
    worker.shutdown();
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => drain(signal));
  // Started by npm start: a parent that died (kill -9) leaves no worker behind.
  process.once('disconnect', () => drain('npm start exited'));
  const running = worker.run();
  const endpoints =
    config.WORKER_HTTP_PORT === undefined
      ? null
      : await serveWorkerEndpoints({ port: config.WORKER_HTTP_PORT, worker, db, sdkMetricsAddress: config.TEMPORAL_SDK_METRICS_ADDRESS });
  logger.info({ taskQueues: worker.workers.map((w) => w.options.taskQueue), httpPort: endpoints?.port }, 'worker running');
  process.send?.(WORKER_READY);
  await running;
  await endpoints?.close();
  await connection.close();
  await client.connection.close();
  await db.destroy();
  logger.info('worker stopped');
  if (process.connected) process.disconnect(); // npm start's channel would keep this process alive
}

main().catch((err) => {
  logger.fatal({ err }, 'worker failed');
  process.exit(1);
});
