import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode } from '@temporalio/worker';

/** The SDK logs the whole bundle at info: only warnings and errors are worth showing. */
const quietLogger = {
  log: () => {},
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (m: string) => console.warn(m),
  error: (m: string) => console.error(m),
};

/**
 * Bundles workflows/ once, ahead of time, into one file a worker loads through
 * WORKFLOW_BUNDLE_PATH: it then starts in seconds instead of bundling at every start (the Docker
 * image and the test run both do this).
 */
export async function writeWorkflowBundle(outPath: string): Promise<void> {
  const bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietLogger });
  writeFileSync(outPath, bundle.code);
}
