import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const REGISTER = path.join(__dirname, 'swc-register.js');
const ENTRY = {
  api: 'api/server.ts',
  worker: 'workers/main.ts',
  postgres: 'test/support/processes/embedded-postgres-main.ts',
  start: 'scripts/start.ts',
} as const;
/** How each kind says it is ready (the API instead answers /healthz). */
const READY_LINE = {
  worker: (l: string) => l.includes('"msg":"worker running"'),
  postgres: (l: string) => l.startsWith('ready '),
  start: (l: string) => l.includes('Press Ctrl-C to stop.'),
};
const READY_TIMEOUT_MS = 90_000;
const KEPT_LINES = 200;

export type ServiceKind = keyof typeof ENTRY;

/**
 * The production entry point of the API or the worker (`npm run api` / `npm run worker`), or a
 * scenario's own PostgreSQL, as a real child process: a test can SIGKILL it like an OOM kill or a
 * lost machine, stop it, and start another.
 */
export class ServiceProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  /** How the last run ended: its exit code, or null when a signal ended it. */
  exitCode: number | null = null;
  /** The last lines it printed, shown when it does not become ready. */
  readonly output: string[] = [];
  private readonly waiters: { test: (line: string) => boolean; resolve: () => void }[] = [];
  private partial = '';

  constructor(
    readonly kind: ServiceKind,
    readonly env: Record<string, string>,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns it and resolves once it serves: the API answers /healthz, the worker logged that it polls. */
  async start(): Promise<this> {
    if (this.child) throw new Error(`${this.kind} is already running`);
    const child = spawn(process.execPath, ['-r', REGISTER, ENTRY[this.kind]], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // `npm start` runs in a terminal: its own process group, so interrupt() can Ctrl-C all of it.
      detached: this.kind === 'start',
    });
    this.child = child;
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.exitCode = code;
        resolve();
      }),
    );
    void this.exited.then(() => {
      if (this.child === child) this.child = null;
    });
    for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', (chunk: string) => this.record(chunk));
    await Promise.race([
      this.kind === 'api' ? this.waitForHealth() : this.waitForLine(READY_LINE[this.kind]),
      this.exited.then(() => Promise.reject(new Error(`${this.kind} exited before it was ready:\n${this.tail()}`))),
    ]);
    return this;
  }

  /** kill -9: no shutdown hook runs, in-flight work is lost mid-way. Resolves once the process is gone. */
  async kill(): Promise<void> {
    this.child?.kill('SIGKILL');
    await this.exited;
  }

  /**
   * Ctrl-C in the terminal of a `start` process: SIGINT to its whole process group (the embedded
   * PostgreSQL and the Temporal dev server get it too, as they do from a terminal). Resolves on exit.
   */
  async interrupt(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
    process.kill(-child.pid, 'SIGINT');
    await this.exited;
    clearTimeout(timer);
  }

  /** A graceful stop (SIGTERM drains), escalating to SIGKILL if it hangs. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.kill('SIGTERM');
    await this.exited;
    clearTimeout(timer);
  }

  /** Resolves when a printed line passes `test` (e.g. a log line saying a step was reached). */
  waitForLine(test: (line: string) => boolean, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    if (this.output.some(test)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.kind}: no matching line within ${timeoutMs} ms:\n${this.tail()}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.env.PORT}`;
  }

  private async waitForHealth(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const ok = await fetch(`${this.baseUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`api did not answer /healthz within ${READY_TIMEOUT_MS} ms:\n${this.tail()}`);
  }

  /** Output arrives in chunks that may end mid-line: only whole lines are matched. */
  private record(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines.filter(Boolean)) {
      this.output.push(line);
      if (this.output.length > KEPT_LINES) this.output.shift();
      for (const w of this.waiters.filter((x) => x.test(line))) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  private tail(): string {
    return this.output.slice(-30).join('\n');
  }
}

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A one-shot entry point (`npm run admin -- ...` is scripts/admin.ts) run to completion, from TypeScript like the services. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 90_000,
  onStdout?: (chunk: string) => void,
): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', REGISTER, script, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
      onStdout?.(c);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} did not finish within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    // 'close', not 'exit': output still in the pipes when the process exits is read first.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
