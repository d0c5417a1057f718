import { Client, Connection } from '@temporalio/client';
import { webhookSweepScheduleId } from '../../../lib/temporal/webhook-sweep-schedule';
import { leadDedupeSweepScheduleId } from '../../../lib/temporal/lead-dedupe-sweep-schedule';
import { idempotencyPurgeScheduleId } from '../../../lib/temporal/idempotency-purge-schedule';
import { webhookHistoryPurgeScheduleId } from '../../../lib/temporal/webhook-history-purge-schedule';
import { changeFeedPurgeScheduleId } from '../../../lib/temporal/change-feed-purge-schedule';
import { freePort } from '../free-port';
import { ServiceProcess } from './service-process';

export interface ServiceTargets {
  databaseUrl: string;
  temporalAddress: string;
  /** Unset: email goes to the capture transport. */
  smtpUrl?: string;
  /** Extra settings for both processes (e.g. a short sweep interval). */
  env?: Record<string, string>;
}

export interface Services {
  api: ServiceProcess;
  worker: ServiceProcess;
  taskQueue: string;
  /** SIGKILLs the worker and starts a fresh one with the same settings, like a supervisor would. */
  replaceWorker(): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

let started = 0;

/** The settings `npm run api` and `npm run worker` read, pointed at this scenario's dependencies. */
function serviceEnv(targets: ServiceTargets, taskQueue: string): Record<string, string> {
  return {
    DATABASE_URL: targets.databaseUrl,
    TEMPORAL_ADDRESS: targets.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    // The bundle global setup built: a worker then starts in seconds, which restarts need.
    WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE as string,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    IP_RATE_LIMIT_PER_MINUTE: '1000000',
    // Every request of a scenario comes from 127.0.0.1, fuzzed login and form posts included.
    PUBLIC_TRACKING_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_PAGES_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_FORMS_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_LOGIN_LIMIT_PER_MINUTE: '1000000',
    PUBLIC_FILE_URLS_LIMIT_PER_MINUTE: '1000000',
    // Production refuses live email without an https public address; nothing here follows its links.
    ...(targets.smtpUrl ? { SMTP_URL: targets.smtpUrl, PUBLIC_BASE_URL: 'https://reliability.test' } : {}),
    ...targets.env,
  };
}

/** The API and one worker as child processes, on a task queue of their own. */
export async function startServices(targets: ServiceTargets, apiEnv: Record<string, string> = {}): Promise<Services> {
  const taskQueue = `reliability-${process.pid}-${++started}-${Date.now()}`;
  const env = serviceEnv(targets, taskQueue);
  let worker = new ServiceProcess('worker', env);
  const api = new ServiceProcess('api', { ...env, PORT: String(await freePort()), ...apiEnv });
  await Promise.all([worker.start(), api.start()]);
  return {
    api,
    get worker() {
      return worker;
    },
    taskQueue,
    async replaceWorker() {
      await worker.kill();
      worker = new ServiceProcess('worker', env);
      return worker.start();
    },
    async stop() {
      await Promise.all([api.stop(), worker.stop()]);
      await deleteSweepSchedules(targets.temporalAddress, taskQueue);
    },
  };
}

/** Every worker creates the sweep schedules for its queue; left behind, they would fire forever. */
export async function deleteSweepSchedules(address: string, taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 }).catch(() => null);
  if (!connection) return; // a scenario that stopped its own Temporal for good
  const client = new Client({ connection });
  const ids = [
    webhookSweepScheduleId(taskQueue),
    leadDedupeSweepScheduleId(taskQueue),
    idempotencyPurgeScheduleId(taskQueue),
    webhookHistoryPurgeScheduleId(taskQueue),
    changeFeedPurgeScheduleId(taskQueue),
  ];
  for (const id of ids) {
    await client.schedule
      .getHandle(id)
      .delete()
      .catch(() => undefined);
  }
  await connection.close();
}
