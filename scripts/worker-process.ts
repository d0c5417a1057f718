/**
 * `npm start`'s worker: `dist/workers/main.js` (what `npm run worker` runs) as a child process, so
 * the API keeps an event loop of its own. In one process, every activity (a webhook delivery, an
 * import chunk, an email render) and every workflow activation ran between the API's requests.
 * A worker that dies is started again; Temporal keeps its tasks meanwhile.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { logger } from '../lib/logger';
import { WORKER_READY } from '../workers/parent-channel';

const FIRST_RESTART_MS = 1_000;
const MAX_RESTART_MS = 30_000;
/** A worker that ran this long before it died starts again after the first delay, not the last one doubled. */
const STABLE_MS = 60_000;

export interface WorkerProcess {
  /** Drains the worker (SIGTERM: running activities finish) and resolves once it has exited. */
  stop: () => Promise<void>;
}

/**
 * Starts the worker and resolves once it polls; rejects if it exits first (its own log says why).
 * `env`: the worker's environment (DATABASE_URL and TEMPORAL_ADDRESS of the stack npm start runs).
 */
export async function startWorkerProcess(env: NodeJS.ProcessEnv, onReady: (pid: number) => void): Promise<WorkerProcess> {
  // main.js from dist/; main.ts where the sources run through a transpiler's hook (the tests), which execArgv carries.
  const script = path.join(__dirname, '..', 'workers', `main${path.extname(__filename)}`);
  let child: ChildProcess;
  let stopping = false;
  let restartDelay = FIRST_RESTART_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let started = false;
  // The API's flags apply to the worker too (--cpu-prof included); a fixed profile name would have both write one file.
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--cpu-prof-name'));

  const spawnOnce = () =>
    new Promise<void>((resolve, reject) => {
      const startedAt = Date.now();
      const proc = fork(script, [], { env, stdio: 'inherit', execArgv });
      child = proc;
      proc.on('message', (message) => {
        if (message !== WORKER_READY) return;
        started = true;
        onReady(proc.pid!);
        resolve();
      });
      proc.once('exit', (code, signal) => {
        reject(new Error(`the worker process exited (${signal ?? `code ${code}`}) before it was ready; its log above says why`));
        // Only a worker that ran is started again: one that cannot start (bad settings) fails npm start.
        if (stopping || !started) return;
        restartDelay = Date.now() - startedAt >= STABLE_MS ? FIRST_RESTART_MS : restartDelay;
        logger.error(
          { pid: proc.pid, code, signal, restartInMs: restartDelay },
          'the worker process exited; starting it again (workflows and activities wait in Temporal meanwhile)',
        );
        restartTimer = setTimeout(() => {
          spawnOnce().catch(() => undefined); // an exit before ready schedules the next attempt itself
        }, restartDelay);
        restartDelay = Math.min(restartDelay * 2, MAX_RESTART_MS);
      });
    });

  await spawnOnce();
  return {
    stop: async () => {
      stopping = true;
      clearTimeout(restartTimer);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
