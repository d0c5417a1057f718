/**
 * Options for an activity that may run for minutes (a chunk of an import, a page of a fan-out). Its
 * worker heartbeats while it runs (workers/heartbeat-interceptor.ts), so when the worker dies the
 * activity is retried on another one after `heartbeatTimeout`, not after the whole start-to-close
 * timeout: an import or a campaign's pause stalls for seconds, not minutes.
 */
export const LONG_ACTIVITY = { startToCloseTimeout: '5 minutes', heartbeatTimeout: '30 seconds' } as const;
