/**
 * The service as it ships, started from dist/ the way users run it: `npm run api` and
 * `npm run worker` as two processes, or `npm start` (dist/scripts/start.js) as one command. Production
 * settings: NODE_ENV=production with this run's secrets (bench/secrets.ts), LOG_LEVEL=info (one
 * access-log line per request), logs written to a file as a log collector would read them.
 * BENCH_CPU_PROF=<dir> adds --cpu-prof; the processes stop on SIGTERM and write their profiles, a
 * directory per process (`<dir>/<name>.<time>/`) with a file per thread (the worker's workflow thread too);
 * the baselines' worker (bench/worker.ts) is profiled the same way, so the two workers compare.
 * BENCH_SERVICE_<NAME>=value sets <NAME> for the service's processes (comparing settings).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../lib/paths';
import { SECRET_NAMES } from './secrets';

export interface ShippedContext {
  dbUrl: string;
  temporalAddress: string;
  /** Where the processes' logs (and the all-in-one's DATA_DIR) go. */
  workDir: string;
  /** The checkout whose dist/ runs (default this one; `npm run bench:ab` runs another's too). */
  projectRoot?: string;
}

/**
 * With BENCH_CPU_PROF set, the flags that profile a process: a directory per process and Node's own
 * file names (pid and thread ID). With --cpu-prof-name every thread wrote one file, and the
 * worker's workflow thread was overwritten by its main thread.
 */
export function cpuProfArgs(name: string): string[] {
  const profDir = process.env.BENCH_CPU_PROF;
  return profDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profDir, `${name}.${Date.now()}`)}`] : [];
}

export interface ShippedProcess {
  name: string;
  pid: number;
  /** Throws if the process has exited: a target measured against a dead process would only count refused connections. */
  assertRunning(): void;
  /** Where the API answers (the worker's /healthz for the worker). */
  url: string;
  logFile: string;
  stop(): Promise<void>;
}

/** Per-IP and auth-failure limits raised so one load generator on one address is not refused (the tenant is unlimited too). */
const RAISED_LIMITS = {
  IP_RATE_LIMIT_PER_MINUTE: String(1e9),
  AUTH_FAILURE_LIMIT_PER_MINUTE: String(1e9),
  // The per-IP limits of the public routes (one load generator is one IP): the open pixel and click redirect are measured.
  PUBLIC_TRACKING_LIMIT_PER_MINUTE: String(1e9),
  PUBLIC_PAGES_LIMIT_PER_MINUTE: String(1e9),
  PUBLIC_FILE_URLS_LIMIT_PER_MINUTE: String(1e9),
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function productionEnv(ctx: ShippedContext, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATABASE_URL: ctx.dbUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    // The API stores uploads where the worker's imports read them, whichever layout runs.
    FILES_DIR: path.join(ctx.workDir, 'files'),
    ...RAISED_LIMITS,
    ...extra,
  };
  for (const name of SECRET_NAMES) env[name] = process.env[name];
  // Experiments: BENCH_SERVICE_DB_POOL_SIZE=20 starts the service with DB_POOL_SIZE=20.
  for (const [name, value] of Object.entries(process.env)) if (name.startsWith('BENCH_SERVICE_')) env[name.slice(14)] = value;
  return env;
}

async function waitHealthy(url: string, child: ChildProcess, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited} before it was ready`);
    const ok = await fetch(url + '/healthz').then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready within ${timeoutMs / 1000} s`);
}

async function start(
  name: string,
  script: string,
  ctx: ShippedContext,
  extra: Record<string, string>,
  port: number,
): Promise<ShippedProcess> {
  const logFile = path.join(ctx.workDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const execArgv = cpuProfArgs(name);
  const root = ctx.projectRoot ?? PROJECT_ROOT;
  const child = spawn(process.execPath, [...execArgv, path.join(root, 'dist', script)], {
    cwd: root,
    env: productionEnv(ctx, extra),
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  // The worker and npm start bundle the workflow code first (tens of seconds on a busy machine).
  await waitHealthy(url, child, name, 180_000).catch((err: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${err.message}; see ${logFile}`);
  });
  return {
    name,
    pid: child.pid as number,
    assertRunning: () => {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}); see ${logFile}`);
    },
    url,
    logFile,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** `npm run api`: node dist/api/server.js. */
export async function startApi(ctx: ShippedContext): Promise<ShippedProcess> {
  const port = await freePort();
  return start('api', 'api/server.js', ctx, { PORT: String(port) }, port);
}

/**
 * `npm run worker`: node dist/workers/main.js, with its /healthz for readiness. Webhook targets on
 * loopback are allowed so T6's local receiver can be delivered to (production refuses private targets).
 */
export async function startWorker(ctx: ShippedContext): Promise<ShippedProcess> {
  const port = await freePort();
  return start('worker', 'workers/main.js', ctx, { WORKER_HTTP_PORT: String(port), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }, port);
}

/**
 * `npm start` (dist/scripts/start.js: the API, and the worker as its child process), pointed at the same
 * PostgreSQL and Temporal as everything else here so only the process layout differs.
 */
export async function startAllInOne(ctx: ShippedContext): Promise<ShippedProcess> {
  const port = await freePort();
  const dataDir = path.join(ctx.workDir, 'npm-start-data');
  mkdirSync(dataDir, { recursive: true });
  return start(
    'npm-start',
    'scripts/start.js',
    ctx,
    { PORT: String(port), DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    port,
  );
}
