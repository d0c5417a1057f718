import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineSignal,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';
import { proxyLaneActivities } from './lanes';
import type { WebhookDeliveryRef } from './types';

/** One HTTP attempt per activity call: the workflow owns the schedule, so every attempt is logged. */
const attemptOptions = { startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 1 } } as const;
/** Bookkeeping in our own database: retried until it works. */
const bookkeeping = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const;
const { prepareWebhookDelivery, failWebhookDelivery } = proxyActivities<WebhookActivities>(bookkeeping);
/**
 * The delivery row is prepared by a local activity: it runs in the worker that runs the workflow,
 * without a round trip through the task queue, and is recorded as a marker. That is most of what
 * a delivery costs the Temporal server besides the attempt itself (`npm run bench`, T6).
 */
const { prepareWebhookDelivery: prepareLocally } = proxyLocalActivities<WebhookActivities>(bookkeeping);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before each attempt: now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const WEBHOOK_RETRY_DELAYS_MS = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** ±10 %, so endpoints that fail together do not get retried in lockstep. */
export const WEBHOOK_RETRY_JITTER = 0.1;

/** Brings the next attempt of a delivery waiting between attempts forward to now (a retry through the API). */
export const attemptNowSignal = defineSignal('attemptNow');

/** Patch: a retry that arrives while an attempt is in flight is kept for the wait after it. */
const ATTEMPT_NOW_KEPT = 'attempt-now-kept-during-attempt';

/** Math.random is seeded per run by Temporal, so the jitter replays identically. */
const jittered = (ms: number) => Math.round(ms * (1 + WEBHOOK_RETRY_JITTER * (2 * Math.random() - 1)));

function failureOf(err: unknown): { message: string; final: boolean } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  return { message, final: cause instanceof ApplicationFailure && cause.nonRetryable === true };
}

/**
 * Delivers one event to one endpoint (workflow ID `webhook/<eventId>/<endpointId>`): attempts on
 * the retry schedule with durable sleeps in between, until a 2xx, a refusal that retrying cannot
 * fix (410 Gone, a target refused as SSRF), or the end of the schedule.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryRef): Promise<{ status: string; attempts: number }> {
  const scope = { tenantId: input.tenantId, environment: input.environment };
  const { attemptWebhookDelivery } = proxyLaneActivities<WebhookActivities>('webhooks', attemptOptions);
  // Runs started before the local activity replay their recorded (remote) activity.
  const prepared = patched('webhook-prepare-local-activity') ? await prepareLocally(input) : await prepareWebhookDelivery(input);
  if (prepared.skip) return { status: prepared.status, attempts: 0 };
  const delays = (prepared.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS).map(jittered);
  let reason = 'All attempts failed';
  let attempts = 0;
  let attemptNow = false;
  setHandler(attemptNowSignal, () => void (attemptNow = true));
  for (let i = 0; i < delays.length; i++) {
    if (delays[i] > 0) {
      // Runs from before the patch cleared here a retry that came while the attempt before was in
      // flight, and waited the whole delay: but that attempt's failure was already recorded for the
      // caller to see, who then asked for another. Now the flag is cleared when an attempt starts.
      if (!patched(ATTEMPT_NOW_KEPT)) attemptNow = false;
      // The same timer a sleep starts, so runs recorded with sleep() replay unchanged.
      await condition(() => attemptNow, delays[i]);
    }
    attemptNow = false;
    const nextAttemptAt = i + 1 < delays.length ? new Date(Date.now() + delays[i + 1]).toISOString() : null;
    attempts++;
    try {
      const result = await attemptWebhookDelivery({ ...scope, deliveryId: prepared.deliveryId, nextAttemptAt });
      if (result.outcome === 'succeeded') return { status: 'succeeded', attempts };
      reason = result.reason;
      break;
    } catch (err) {
      const { message, final } = failureOf(err);
      reason = message;
      if (final) break;
    }
  }
  await failWebhookDelivery({ ...scope, deliveryId: prepared.deliveryId, reason });
  return { status: 'failed', attempts };
}
