import { cpuMeter } from './process-cpu';

/**
 * What every measured run does first, target and baseline alike: load for a second, then on until
 * WARMUP.items have been answered in all. A second was enough for a route that answers thousands
 * of requests per second, but not for one that answers a hundred: POST /v1/analytics/events (T5-signal)
 * ran about 50 events/s in its first seconds and 110-170/s after some 1,500, in one 10-second run
 * (most likely its code not yet optimised by V8 and its connections' statements not yet prepared).
 */
export const WARMUP = {
  seconds: 1,
  /** Requests, or items for a target that sends several per request (T7: 100 leads each). */
  items: 1000,
  /** The longest the part after the first second may take, for a target far slower than expected. */
  maxSeconds: 20,
  concurrency: 10,
} as const;

/**
 * Runs `load(seconds, maxRequests)` for WARMUP.seconds, then again until WARMUP.items are answered.
 * `load` returns how many requests it had answered; `itemsPerRequest` converts them to items.
 * `settle`, if given, runs before the measured part starts (T5-signal: until what the warm-up queued is done).
 */
export async function warmUp(
  load: (seconds: number, maxRequests?: number) => Promise<number>,
  itemsPerRequest = 1,
  settle?: () => Promise<void>,
): Promise<void> {
  const needed = Math.ceil(WARMUP.items / itemsPerRequest);
  const answered = await load(WARMUP.seconds);
  if (answered < needed) await load(WARMUP.maxSeconds, Math.max(needed - answered, WARMUP.concurrency));
  await settle?.();
  cpuMeter.begin(); // the measured part starts here
}
