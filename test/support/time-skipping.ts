import { TestWorkflowEnvironment } from '@temporalio/testing';
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
