/**
 * A worker in its own process for the Temporal targets: `baseline` runs bench/workflows.ts (one
 * no-op activity), `real` the service's own worker with every workflow and activity.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { initializeDatabase } from '../db/data-source';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createWorker } from '../workers/create-worker';
import { installWorkerRuntime } from '../workers/runtime';

interface Args {
  mode: 'baseline' | 'real';
  dbUrl: string;
  temporalAddress: string;
  taskQueue: string;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as Args;
  installWorkerRuntime();
  const connection = await NativeConnection.connect({ address: args.temporalAddress });
  let worker: Worker;
  if (args.mode === 'baseline') {
    worker = await Worker.create({
      connection,
      taskQueue: args.taskQueue,
      workflowsPath: require.resolve('./workflows'),
      activities: { benchActivity: async () => undefined },
    });
  } else {
    const db = await initializeDatabase({ url: args.dbUrl, poolSize: 20 });
    const client = new Client({ connection: await Connection.connect({ address: args.temporalAddress }) });
    worker = await createWorker({
      connection,
      namespace: 'default',
      taskQueue: args.taskQueue,
      deps: { db, workflows: new WorkflowStarter(client, args.taskQueue), webhooks: { allowPrivateTargets: true } },
    });
  }
  const running = worker.run();
  process.send?.({ ready: true });
  process.once('SIGTERM', () => worker.shutdown());
  await running;
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
