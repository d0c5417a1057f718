import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { devServerSearchAttributeFlags } from './search-attributes';

export interface DevServer {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

interface Options {
  binary: string;
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** No Web UI (tests). */
  headless?: boolean;
  onLog?: (line: string) => void;
  /** Told why a start is tried again (default: onLog). */
  onRetry?: (message: string) => void;
}

/**
 * Start attempts. The dev server binds its internal services (history, matching, its HTTP and
 * metrics endpoints) to ports it picks itself, and one picked as free can be taken before it is
 * bound (a Go panic, exit code 2, seen once in CI while other tests started servers): a fresh
 * attempt picks fresh ports. A port given here that is in use fails every attempt within a second.
 */
const START_ATTEMPTS = 3;
/** Output lines kept for the error of a server that exited while starting. */
const TAIL_LINES = 15;

class ExitedWhileStarting extends Error {}

/**
 * `temporal server start-dev` with a persistent SQLite file so workflows survive restarts. WAL with
 * `synchronous=normal`: a commit is in the WAL file when the server answers, so a killed server
 * loses nothing (test/reliability/temporal-restart.test.ts); only an OS crash could lose the last
 * commits, which SQLite's default (an fsync per commit) would keep. Measured in
 * test/campaign-operations.test.ts (one run each): 2,000 workflow starts took 31 s with the fsync
 * and 24 s without, the 2,000 signals of the pause that follows 59 s and 50 s.
 */
export async function startDevServer(opts: Options): Promise<DevServer> {
  mkdirSync(opts.dataDir, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof ExitedWhileStarting) || attempt >= START_ATTEMPTS) throw err;
      (opts.onRetry ?? opts.onLog)?.(`${err.message}; starting it again (attempt ${attempt + 1} of ${START_ATTEMPTS})`);
    }
  }
}

async function startOnce(opts: Options): Promise<DevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    ...(opts.headless ? ['--headless'] : ['--ui-port', String(opts.uiPort)]),
    '--namespace',
    opts.namespace,
    '--db-filename',
    path.resolve(opts.dataDir, 'temporal.sqlite'),
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=normal',
    '--log-level',
    'warn',
    ...devServerSearchAttributeFlags(),
  ];
  const child = spawn(opts.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const forward = (buf: Buffer) =>
    buf
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => {
        tail.push(l);
        if (tail.length > TAIL_LINES) tail.shift();
        opts.onLog?.(l);
      });
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const address = `127.0.0.1:${opts.port}`;
  try {
    await waitUntilServing(address, child, tail);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, stop: () => stopChild(child) };
}

async function waitUntilServing(address: string, child: ChildProcess, tail: string[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | null = null;
  // 'close', not 'exit': by then the output is read, so the error can quote it.
  child.once('close', (code) => (exited = code ?? -1));
  while (Date.now() < deadline) {
    if (exited !== null) {
      const output = tail.length ? `: ${tail.join(' | ')}` : ' without output';
      throw new ExitedWhileStarting(`Temporal dev server on ${address} exited with code ${exited} while starting${output}`);
    }
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  throw new Error(`Temporal dev server did not become ready on ${address} within ${timeoutMs / 1000}s`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
