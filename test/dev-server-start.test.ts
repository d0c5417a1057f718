import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startDevServer } from '../lib/temporal/dev-server';
import { freePort } from './support/free-port';

/**
 * `npm start`, the test run and the bench start a real Temporal dev server. It binds ports it picks
 * itself besides the one given, and once in CI one of them was taken before it was bound: the server
 * exited while starting and a whole test file failed. A start that fails that way is tried again.
 */
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'dev-server-start-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real CLI behind a wrapper whose first run exits as a Go panic does (code 2), with a line of output. */
function failingOnce(): string {
  const wrapper = path.join(dir, 'temporal-failing-once');
  const marker = path.join(dir, 'failed-once');
  writeFileSync(
    wrapper,
    `#!/bin/sh
if [ ! -e '${marker}' ]; then touch '${marker}'; echo 'panic: listen tcp 127.0.0.1:1: bind: address already in use' >&2; exit 2; fi
exec '${process.env.TEMPORAL_CLI_PATH}' "$@"
`,
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

it('starts again when the server exits while starting, and says why', async () => {
  const lines: string[] = [];
  const server = await startDevServer({
    binary: failingOnce(),
    dataDir: path.join(dir, 'retried'),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
    headless: true,
    onRetry: (l) => lines.push(l),
  });
  try {
    expect(lines.join('\n')).toMatch(
      /exited with code 2 while starting: panic: listen tcp 127\.0\.0\.1:1: bind: address already in use; starting it again \(attempt 2 of 3\)/,
    );
  } finally {
    await server.stop();
  }
}, 60_000);

it('gives up on a port that is taken, quoting what the server said', async () => {
  const port = await freePort();
  // Connections are refused at once, so the start's readiness probe holds none open after the test.
  const taken: Server = createServer((socket) => socket.destroy()).listen(port, '127.0.0.1');
  try {
    await expect(
      startDevServer({
        binary: process.env.TEMPORAL_CLI_PATH as string,
        dataDir: path.join(dir, 'taken'),
        port,
        uiPort: await freePort(),
        namespace: 'default',
        headless: true,
      }),
    ).rejects.toThrow(new RegExp(`exited with code 1 while starting: .*can't set frontend port ${port}.*address already in use`));
  } finally {
    taken.close();
  }
}, 60_000);
