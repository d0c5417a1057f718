import type { State, Worker } from '@temporalio/worker';

/**
 * The workflows' worker and its activity lanes' workers (workflows/activity-lanes.ts), run,
 * checked and drained as one: the process is healthy only while all of them poll, and one that
 * fails takes the others down with it so a supervisor restarts the whole process.
 */
export class WorkerGroup {
  constructor(readonly workers: readonly Worker[]) {}

  /** The workflows' worker: its task queue is the one workflows are started on. */
  get main(): Worker {
    return this.workers[0];
  }

  getState(): State {
    return this.workers.find((w) => w.getState() !== 'RUNNING')?.getState() ?? 'RUNNING';
  }

  async run(): Promise<void> {
    const runs = this.workers.map((w) =>
      w.run().catch((err: unknown) => {
        this.shutdown();
        throw err;
      }),
    );
    const results = await Promise.allSettled(runs);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Stops polling on every queue; in-flight activities get the workers' shutdownGraceTime. */
  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }

  /** Runs the workers until `until` settles, then drains them (tests and one-shot runs). */
  async runUntil<R>(until: Promise<R> | (() => Promise<R>)): Promise<R> {
    const running = this.run();
    try {
      return await (typeof until === 'function' ? until() : until);
    } finally {
      this.shutdown();
      await running;
    }
  }
}
