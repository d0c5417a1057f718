import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { ActivityDeps } from '../../activities';
import { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { createWorker, type WorkerSetup } from '../../workers/create-worker';
import type { WorkerGroup } from '../../workers/worker-group';
import { quietTemporalLogs } from './stack';

/**
 * A time-skipping test server of the test file's own, from the binary global setup found. It
 * rejects custom search attributes, so tests start workflows on its client directly.
 */
export function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  // Retried activities log expected failures at WARN; these tests only want errors.
  quietTemporalLogs('ERROR');
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.TEMPORAL_TEST_SERVER_PATH as string } },
  });
}

/**
 * A real worker on the time-skipping server, on the test's own task queue, with the prebuilt
 * workflow bundle. Webhook targets on loopback are allowed (tests' receivers listen there); files
 * and messaging left out come from config, as createWorker reads them.
 */
export function timeSkippingWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  deps: Pick<ActivityDeps, 'db'> & Partial<WorkerSetup['deps']>,
): Promise<WorkerGroup> {
  return createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE as string },
    deps: { workflows: new WorkflowStarter(env.client, taskQueue), webhooks: { allowPrivateTargets: true }, ...deps },
  });
}
