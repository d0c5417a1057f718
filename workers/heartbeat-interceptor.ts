import type { ActivityInterceptorsFactory } from '@temporalio/worker';

/** How often a running activity tells Temporal its worker is alive. */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * Every activity that runs longer than the interval heartbeats while it runs. A workflow that gives
 * a long activity (an import chunk, a page of a fan-out) a `heartbeatTimeout` then has it retried
 * on another worker that long after its worker died, instead of after the whole start-to-close
 * timeout. The heartbeat says only "this process is alive": the activities are idempotent and
 * resume from what they committed, so they carry no heartbeat details.
 */
export const heartbeatWhileRunning: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const timer = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
      try {
        return await next(input);
      } finally {
        clearInterval(timer);
      }
    },
  },
});
