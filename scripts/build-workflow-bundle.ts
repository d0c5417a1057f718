/** `node dist/scripts/build-workflow-bundle.js <out.js>`: the workflow bundle, built at image build time (see Dockerfile). */
import path from 'node:path';
import { describeError } from '../lib/describe-error';
import { writeWorkflowBundle } from '../workers/workflow-bundle';

const out = process.argv[2];
if (!out) {
  console.error('Usage: node dist/scripts/build-workflow-bundle.js <output file>, e.g. dist/workflow-bundle.js');
  process.exit(2);
}
writeWorkflowBundle(path.resolve(out)).then(
  () => console.log(`workflow bundle written to ${path.resolve(out)}`),
  (err) => {
    console.error(`building the workflow bundle failed: ${describeError(err)}`);
    process.exit(1);
  },
);
