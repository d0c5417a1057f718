/**
 * The baselines' worker in its own process: runs bench/workflows.ts (T5's waiting workflow, T6's
 * one no-op activity). The service's own worker is the shipped one (bench/shipped.ts).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { installWorkerRuntime } from '../workers/runtime';

interface Args {
  temporalAddress: string;
  taskQueue: string;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2]) as Args;
  installWorkerRuntime();
  const connection = await NativeConnection.connect({ address: args.temporalAddress });
  const worker = await Worker.create({
    connection,
    taskQueue: args.taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: { benchActivity: async () => undefined },
  });
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
