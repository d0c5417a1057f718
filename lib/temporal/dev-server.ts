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
}

/** `temporal server start-dev` with a persistent SQLite file (WAL) so workflows survive restarts. */
export async function startDevServer(opts: Options): Promise<DevServer> {
  mkdirSync(opts.dataDir, { recursive: true });
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
    '--log-level',
    'warn',
    ...devServerSearchAttributeFlags(),
  ];
  const child = spawn(opts.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (buf: Buffer) =>
    buf
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => opts.onLog?.(l));
  child.stdout?.on('data', forward);
  child.stderr?.on('data', forward);
  const address = `127.0.0.1:${opts.port}`;
  await waitUntilServing(address, child);
  return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, stop: () => stopChild(child) };
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`Temporal dev server exited with code ${exited} (is port ${address} already in use?)`);
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
