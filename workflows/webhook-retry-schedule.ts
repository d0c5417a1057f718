const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each attempt: now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_DELAYS_MS = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** ±10 %, so endpoints that fail together do not get retried in lockstep. */
export const WEBHOOK_RETRY_JITTER = 0.1;

/**
 * A delay stretched by its jitter factor (1 ± WEBHOOK_RETRY_JITTER): the workflow draws the
 * factors, and the first attempt's activity applies the second delay's to show when the next
 * attempt comes, so both agree.
 */
export const jitteredDelay = (ms: number, factor: number) => Math.round(ms * factor);
