import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { config } from '../lib/config';
import { serializeError } from '../lib/log-redaction';
import { logger } from '../lib/logger';

const NO_WORKFLOWS = 'No workflows registered, not polling for workflow tasks';

/**
 * Routes the SDK's logs into our pino logger. The SDK logs the whole workflow bundle at INFO, so
 * it only speaks from WARN up unless LOG_LEVEL asks for debug. Call once, before any worker.
 * The entry points own SIGINT/SIGTERM (they stop the API, drain and close in order): the SDK's
 * own signal handlers would shut the worker down behind their back, and their second
 * `worker.shutdown()` then threw "Not running" at Ctrl-C.
 */
export function installWorkerRuntime(): void {
  const level: LogLevel = config.LOG_LEVEL === 'debug' || config.LOG_LEVEL === 'trace' ? 'DEBUG' : 'WARN';
  Runtime.install({
    shutdownSignals: [],
    ...(config.TEMPORAL_SDK_METRICS_ADDRESS
      ? {
          telemetryOptions: { metrics: { prometheus: { bindAddress: config.TEMPORAL_SDK_METRICS_ADDRESS, useSecondsForDurations: true } } },
        }
      : {}),
    logger: new DefaultLogger(level, ({ level: l, message, meta }) => {
      // The lane workers are activity-only by design (workers/create-worker.ts): not worth a warning at every start.
      if (message === NO_WORKFLOWS) return logger.debug({ temporal: meta }, message);
      const method = l === 'TRACE' ? 'trace' : l === 'DEBUG' ? 'debug' : l === 'INFO' ? 'info' : l === 'WARN' ? 'warn' : 'error';
      logger[method]({ temporal: meta && withSerializedErrors(meta) }, message);
    }),
  });
}

/** pino's `err` serializer applies to top-level `err` only; the SDK puts failures (e.g. an activity's SQL error) in `meta.error`. */
export const withSerializedErrors = (meta: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, v instanceof Error ? serializeError(v) : v]));
