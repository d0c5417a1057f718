/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload for `node -r`, it cannot use import */
/**
 * `node -r ./test/support/processes/swc-register.js api/server.ts`: runs the production entry points
 * straight from TypeScript in a real child process, so crash scenarios need no `npm run build`
 * (tsc takes over a minute here; swc transpiles each file on load in milliseconds). @swc/core comes
 * with @temporalio/worker, which uses it to bundle workflows. Transpile only: typecheck is its own step.
 */
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

const options = (filename) => ({
  filename,
  sourceMaps: 'inline',
  module: { type: 'commonjs' },
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    // TypeORM entities read column types from decorator metadata, as with tsc's emitDecoratorMetadata.
    transform: { legacyDecorator: true, decoratorMetadata: true },
  },
});

require.extensions['.ts'] = (module, filename) => {
  module._compile(transformSync(readFileSync(filename, 'utf8'), options(filename)).code, filename);
};
