import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type Activities, type ActivityDeps } from '../activities';
import { messagingSettingsFromConfig } from '../activities/messaging/settings';
import { createFileStorage } from '../lib/files/create-storage';
import { config } from '../lib/config';
import { laneTaskQueue, type ActivityLane } from '../workflows/activity-lanes';
import { TASK_QUEUE } from '../lib/temporal/task-queues';
import { heartbeatWhileRunning } from './heartbeat-interceptor';
import { WorkerGroup } from './worker-group';

/** Which activities run on which lane (the workflows name the same lane when they call them). */
const LANE_ACTIVITIES: Record<ActivityLane, readonly (keyof Activities)[]> = {
  webhooks: ['attemptWebhookDelivery', 'prepareAndAttemptWebhookDelivery'],
  sends: ['deliverMessage'],
  ai: ['askModel'],
};

interface LaneSettings {
  /** Activities of the lane run at once in this process. */
  concurrency: number;
  /** Activities of the lane started per second across every worker on its queue (a provider's limit); unset: no limit. */
  perSecond?: number;
}

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  /** Messaging settings left out are read from config here, once. */
  deps: Omit<ActivityDeps, 'messaging' | 'files'> & Partial<Pick<ActivityDeps, 'messaging' | 'files'>>;
  taskQueue?: string;
  /** A prebuilt bundle (tests build it once); otherwise workflows/ is bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Database activities run at once, local ones and ordinary ones each: the size of the worker's
   * database pool, so an activity rarely waits for a connection behind others (unset: Temporal's default, 100).
   */
  maxConcurrentActivities?: number;
  /** Lanes left out are read from config (WORKER_*_CONCURRENCY, WORKER_SEND_RATE_PER_SECOND). */
  lanes?: Partial<Record<ActivityLane, LaneSettings>>;
  /** After shutdown() (SIGTERM), how long in-flight activities may run on before they are cancelled. */
  shutdownGraceTimeMs?: number;
}

const laneSettingsFromConfig = (c: typeof config): Record<ActivityLane, LaneSettings> => ({
  webhooks: { concurrency: c.WORKER_WEBHOOK_CONCURRENCY },
  sends: { concurrency: c.WORKER_SEND_CONCURRENCY, perSecond: c.WORKER_SEND_RATE_PER_SECOND },
  ai: { concurrency: c.WORKER_AI_CONCURRENCY },
});

function pick(activities: Activities, names: readonly (keyof Activities)[]): Partial<Activities> {
  return Object.fromEntries(names.map((name) => [name, activities[name]]));
}

/**
 * The composition root for workflows and activities: the only place real clients are wired in.
 * One worker polls the workflows' queue and runs the database activities; one per lane runs the
 * activities that wait on other servers.
 */
export async function createWorker(setup: WorkerSetup): Promise<WorkerGroup> {
  const taskQueue = setup.taskQueue ?? TASK_QUEUE;
  const activities = createActivities({
    ...setup.deps,
    messaging: setup.deps.messaging ?? messagingSettingsFromConfig(config),
    files: setup.deps.files ?? createFileStorage(config),
  });
  const laneNames = new Set<string>(Object.values(LANE_ACTIVITIES).flat());
  const common = {
    connection: setup.connection,
    namespace: setup.namespace,
    shutdownGraceTime: setup.shutdownGraceTimeMs ?? config.WORKER_SHUTDOWN_GRACE_MS,
    interceptors: { activity: [heartbeatWhileRunning] },
  };
  const main = await Worker.create({
    ...common,
    taskQueue,
    ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
    activities: Object.fromEntries(Object.entries(activities).filter(([name]) => !laneNames.has(name))),
    ...(setup.maxConcurrentActivities
      ? // Local activities (a webhook delivery's bookkeeping, a duplicate check) use the same pool.
        {
          maxConcurrentActivityTaskExecutions: setup.maxConcurrentActivities,
          maxConcurrentLocalActivityExecutions: setup.maxConcurrentActivities,
        }
      : {}),
  });
  const lanes = { ...laneSettingsFromConfig(config), ...setup.lanes };
  const laneWorkers = await Promise.all(
    (Object.keys(LANE_ACTIVITIES) as ActivityLane[]).map((lane) =>
      Worker.create({
        ...common,
        taskQueue: laneTaskQueue(taskQueue, lane),
        activities: pick(activities, LANE_ACTIVITIES[lane]),
        maxConcurrentActivityTaskExecutions: lanes[lane].concurrency,
        ...(lanes[lane].perSecond ? { maxTaskQueueActivitiesPerSecond: lanes[lane].perSecond } : {}),
      }),
    ),
  );
  return new WorkerGroup([main, ...laneWorkers]);
}
