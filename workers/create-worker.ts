import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { messagingSettingsFromConfig } from '../activities/messaging/settings';
import { createFileStorage } from '../lib/files/create-storage';
import { config } from '../lib/config';
import { TASK_QUEUE } from '../lib/temporal/task-queues';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  /** Messaging settings left out are read from config here, once. */
  deps: Omit<ActivityDeps, 'messaging' | 'files'> & Partial<Pick<ActivityDeps, 'messaging' | 'files'>>;
  taskQueue?: string;
  /** A prebuilt bundle (tests build it once); otherwise workflows/ is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Activities run at once: the size of the worker's database pool, so an activity never waits
   * for a connection behind others (unset: Temporal's default, 100).
   */
  maxConcurrentActivities?: number;
  /** After shutdown() (SIGTERM), how long in-flight activities may run on before they are cancelled. */
  shutdownGraceTimeMs?: number;
}

/** The composition root for workflows and activities: the only place real clients are wired in. */
export function createWorker(setup: WorkerSetup): Promise<Worker> {
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue ?? TASK_QUEUE,
    ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities({
      ...setup.deps,
      messaging: setup.deps.messaging ?? messagingSettingsFromConfig(config),
      files: setup.deps.files ?? createFileStorage(config),
    }),
    ...(setup.maxConcurrentActivities ? { maxConcurrentActivityTaskExecutions: setup.maxConcurrentActivities } : {}),
    shutdownGraceTime: setup.shutdownGraceTimeMs ?? config.WORKER_SHUTDOWN_GRACE_MS,
  });
}
