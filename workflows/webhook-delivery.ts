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
import type { PreparedDelivery } from '../activities/webhooks/prepare-delivery';
import { jitteredDelay, WEBHOOK_RETRY_DELAYS_MS, WEBHOOK_RETRY_JITTER } from './webhook-retry-schedule';
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

/** Brings the next attempt of a delivery waiting between attempts forward to now (a retry through the API). */
export const attemptNowSignal = defineSignal('attemptNow');

/** Patch: a retry that arrives while an attempt is in flight is kept for the wait after it. */
const ATTEMPT_NOW_KEPT = 'attempt-now-kept-during-attempt';

/** Patch: the first attempt's activity prepares the delivery's row too (activities/webhooks/first-attempt.ts). */
const FIRST_ATTEMPT_PREPARES = 'webhook-first-attempt-prepares';

/** Math.random is seeded per run by Temporal, so the jitter replays identically. */
const jitterFactor = () => 1 + WEBHOOK_RETRY_JITTER * (2 * Math.random() - 1);
const jittered = (ms: number) => jitteredDelay(ms, jitterFactor());

function failureOf(err: unknown): { message: string; final: boolean; prepared?: PreparedDelivery } {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  const application = cause instanceof ApplicationFailure ? cause : null;
  return { message, final: application?.nonRetryable === true, prepared: application?.details?.[0] as PreparedDelivery | undefined };
}

/** Where a delivery stands once its row is prepared: its first attempt made or not. */
interface Started {
  prepared: PreparedDelivery;
  attempts: number;
  /** Set when the delivery is over already (skipped, or the first attempt succeeded). */
  done?: { status: string; attempts: number };
  /** Set when the first attempt failed; `final` when no retry can fix it. */
  failed?: { reason: string; final: boolean };
}

/**
 * Prepares the row and makes the first attempt in one lane activity. When that fails without the
 * prepared delivery in its details (the preparation failed, an old worker has no such activity,
 * the worker was lost), the row is prepared on its own and the schedule starts from the top.
 */
async function startDelivery(input: WebhookDeliveryRef, nextDelayJitter: number): Promise<Started> {
  const { prepareAndAttemptWebhookDelivery } = proxyLaneActivities<WebhookActivities>('webhooks', attemptOptions);
  try {
    const { prepared, attempt } = await prepareAndAttemptWebhookDelivery({ ...input, nextDelayJitter });
    if (!attempt) return { prepared, attempts: 0, done: { status: prepared.status, attempts: 0 } };
    if (attempt.outcome === 'succeeded') return { prepared, attempts: 1, done: { status: 'succeeded', attempts: 1 } };
    return { prepared, attempts: 1, failed: { reason: attempt.reason, final: true } };
  } catch (err) {
    const { message, final, prepared } = failureOf(err);
    if (prepared) return { prepared, attempts: 1, failed: { reason: message, final } };
    const again = await prepareLocally(input);
    return { prepared: again, attempts: 0, done: again.skip ? { status: again.status, attempts: 0 } : undefined };
  }
}

/**
 * Delivers one event to one endpoint (workflow ID `webhook/<eventId>/<endpointId>`): attempts on
 * the retry schedule with durable sleeps in between, until a 2xx, a refusal that retrying cannot
 * fix (410 Gone, a target refused as SSRF), or the end of the schedule.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryRef): Promise<{ status: string; attempts: number }> {
  const scope = { tenantId: input.tenantId, environment: input.environment };
  const { attemptWebhookDelivery } = proxyLaneActivities<WebhookActivities>('webhooks', attemptOptions);
  let attemptNow = false;
  setHandler(attemptNowSignal, () => void (attemptNow = true));
  let started: Started;
  let delays: number[];
  if (patched(FIRST_ATTEMPT_PREPARES)) {
    const nextDelayJitter = jitterFactor();
    started = await startDelivery(input, nextDelayJitter);
    // The delay after the first attempt is the one that attempt showed as its next attempt's time.
    delays = (started.prepared.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS).map((ms, i) =>
      i === 1 ? jitteredDelay(ms, nextDelayJitter) : jittered(ms),
    );
  } else {
    // Runs started before the local activity replay their recorded (remote) activity.
    const prepared = patched('webhook-prepare-local-activity') ? await prepareLocally(input) : await prepareWebhookDelivery(input);
    started = { prepared, attempts: 0, done: prepared.skip ? { status: prepared.status, attempts: 0 } : undefined };
    delays = (prepared.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS).map(jittered);
  }
  if (started.done) return started.done;
  const { prepared, failed } = started;
  let { attempts } = started;
  let reason = failed?.reason ?? 'All attempts failed';
  if (failed?.final) {
    await failWebhookDelivery({ ...scope, deliveryId: prepared.deliveryId, reason });
    return { status: 'failed', attempts };
  }
  // From the first attempt not yet made: the first may have been made with the preparation.
  for (let i = attempts; i < delays.length; i++) {
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
