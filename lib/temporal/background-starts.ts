import { logger } from '../logger';

export interface BackgroundStartsOptions {
  /** Starts in flight at once: keeps a burst of requests from flooding the Temporal frontend. */
  concurrency?: number;
  /** Starts waiting beyond which new ones are dropped (each has a sweep that starts it later). */
  capacity?: number;
  /** Crash tests only: each start first waits this long, so a kill lands between commit and start. */
  holdMs?: number;
}

/**
 * Workflow starts that a request does not wait for, run after the response in a bounded queue.
 * Only for starts that a periodic sweep also makes from committed state (an unchecked lead, say):
 * a start that is dropped, fails, or dies with the process is made by the sweep instead.
 */
export class BackgroundStarts {
  private readonly queue: { label: string; run: () => Promise<unknown> }[] = [];
  private running = 0;
  private idle: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly capacity: number;
  private readonly holdMs: number;

  constructor(opts: BackgroundStartsOptions = {}) {
    this.concurrency = opts.concurrency ?? 8;
    this.capacity = opts.capacity ?? 5_000;
    this.holdMs = opts.holdMs ?? 0;
  }

  /** False when the queue is full and the start was left to the sweep. */
  enqueue(label: string, run: () => Promise<unknown>): boolean {
    if (this.queue.length >= this.capacity) {
      logger.debug({ label }, 'background start queue full; the sweep will start it');
      return false;
    }
    const held = this.holdMs ? () => new Promise((resolve) => setTimeout(resolve, this.holdMs)).then(run) : run;
    this.queue.push({ label, run: held });
    this.next();
    return true;
  }

  /**
   * Resolves once every queued start has been made (tests), or after `maxWaitMs` (shutdown: with
   * Temporal down each start takes its full deadline, and the sweep makes whatever is left).
   */
  drain(maxWaitMs = Infinity): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.idle.push(resolve);
      if (Number.isFinite(maxWaitMs)) setTimeout(resolve, maxWaitMs).unref();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.queue.length) {
      const task = this.queue.shift()!;
      this.running++;
      task
        .run()
        .catch((err) => logger.warn({ err, label: task.label }, 'background workflow start failed; the sweep will start it'))
        .finally(() => {
          this.running--;
          this.next();
          if (this.running === 0 && this.queue.length === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }
}
