import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Express } from 'express';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { ActivityDeps } from '../../activities';
import { createApp, flushApp, type AppOptions } from '../../api/app';
import type { AppDeps } from '../../api/http/domain-context';
import { initializeDatabase } from '../../db/data-source';
import type { Plan } from '../../db/entities/tenant';
import { createTenant, type CreatedTenant } from '../../domain/tenants';
import { encodeId } from '../../lib/ids';
import { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { createWorker, type WorkerSetup } from '../../workers/create-worker';
import type { WorkerGroup } from '../../workers/worker-group';
import { subscribeToEverything } from './events';
import { WebhookReceiver } from './webhook-receiver';

export interface TestStack {
  app: Express;
  db: DataSource;
  client: Client;
  worker: WorkerGroup;
  /** The app's starter: `await stack.workflows.drain()` waits for starts made after a response. */
  workflows: WorkflowStarter;
  taskQueue: string;
  http: () => request.Agent;
  /**
   * Subscribes an endpoint of each of the tenant's environments to every event, delivered to a
   * receiver of the stack's that answers 200. An event no endpoint subscribes to is not written,
   * so a test that reads a tenant's outbox subscribes it first.
   */
  subscribe(tenant: TestTenant): Promise<void>;
  stop(): Promise<void>;
}

let stacks = 0;

const RAISED_PUBLIC_LIMITS = {
  tracking: 1_000_000,
  pages: 1_000_000,
  forms: 1_000_000,
  login: 1_000_000,
  fileUrls: 1_000_000,
  providerCallbacks: 1_000_000,
};

export interface StackOptions {
  /** Tests' receivers listen on 127.0.0.1, so private targets are allowed unless a test says not. */
  allowPrivateWebhookTargets?: boolean;
  app?: AppOptions;
  /** Extra activity dependencies for this file's worker (e.g. AI settings pointing at a local server). */
  activityDeps?: Partial<ActivityDeps>;
  /** Extra app dependencies (e.g. a shorter AI response bound). */
  appDeps?: Partial<AppDeps>;
  /** Database connections for this file's app and worker (default 5; load tests want more). */
  poolSize?: number;
  /** The connections' application_name, so a trigger a test installs can act on this file's statements only. */
  applicationName?: string;
  /** Slots of the worker's database queue and its lanes (default: Temporal's and config's). */
  worker?: Pick<WorkerSetup, 'maxConcurrentActivities' | 'lanes'>;
}

/**
 * The real stack for one test file: the shared migrated PostgreSQL and Temporal dev server from
 * global setup, a real worker on a task queue of this file's own, and the real app.
 */
export async function startStack(opts: StackOptions = {}): Promise<TestStack> {
  quietTemporalLogs();
  const taskQueue = `test-${process.pid}-${++stacks}-${Date.now()}`;
  const address = process.env.TEST_TEMPORAL_ADDRESS as string;
  const db = await initializeDatabase({
    url: process.env.TEST_DB_URL as string,
    poolSize: opts.poolSize ?? 5,
    applicationName: opts.applicationName,
  });
  const client = new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
  const workflows = new WorkflowStarter(client, taskQueue);
  const allowPrivateTargets = opts.allowPrivateWebhookTargets ?? true;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    deps: { db, workflows, webhooks: { allowPrivateTargets }, ...opts.activityDeps },
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE as string },
    ...opts.worker,
  });
  const running = worker.run();
  // Every test process shares 127.0.0.1 and one database: per-IP limits are raised unless a test
  // sets its own (and then uses its own X-Forwarded-For address).
  const app = createApp(
    { db, workflows, webhooks: { allowPrivateTargets }, ...opts.appDeps },
    {
      ...opts.app,
      limits: { ipPerMinute: 1_000_000, authFailuresPerMinute: 1_000_000, publicPerMinute: RAISED_PUBLIC_LIMITS, ...opts.app?.limits },
    },
  );
  let sink: Promise<WebhookReceiver> | undefined;
  return {
    app,
    db,
    client,
    worker,
    workflows,
    taskQueue,
    http: () => request.agent(app),
    subscribe: async (tenant) => subscribeToEverything(db, tenant, (await (sink ??= new WebhookReceiver().start())).url('/every-event')),
    stop: async () => {
      await workflows.drain();
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await client.connection.close();
      await flushApp(app);
      await db.destroy();
      await (await sink)?.stop();
    },
  };
}

export interface TestTenant extends CreatedTenant {
  id: string;
  live: Record<string, string>;
  sandbox: Record<string, string>;
}

let counter = 0;

/** A fresh tenant per test keeps tests independent on the shared database. */
export async function newTenant(db: DataSource, plan: Plan = 'enterprise'): Promise<TestTenant> {
  const created = await createTenant(db, { name: `Test tenant ${process.pid}-${++counter}-${Date.now()}`, plan });
  return {
    ...created,
    id: encodeId('tenant', created.tenant.id),
    live: { 'X-API-Key': created.liveKey },
    sandbox: { 'X-API-Key': created.sandboxKey },
  };
}

export const validLead = (overrides: Record<string, unknown> = {}) => ({
  email: `lead-${Math.random().toString(36).slice(2)}@example.com`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  ...overrides,
});

/** The SDK logs every worker state change at INFO; tests only want warnings. Once per process. */
export function quietTemporalLogs(level: 'WARN' | 'ERROR' = 'WARN'): void {
  try {
    Runtime.install({ logger: new DefaultLogger(level) });
  } catch {
    // already installed by an earlier test file in this jest worker
  }
}
