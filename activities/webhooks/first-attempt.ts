import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { jitteredDelay, WEBHOOK_RETRY_DELAYS_MS } from '../../workflows/webhook-retry-schedule';
import type { WebhookDeliveryRef } from '../../workflows/types';
import { attemptWebhookDelivery, type AttemptResult } from './attempt-delivery';
import { prepareWebhookDelivery, type PreparedDelivery } from './prepare-delivery';

export interface FirstAttemptInput extends WebhookDeliveryRef {
  /** The jitter factor the workflow drew for the delay after this attempt (workflows/webhook-retry-schedule.ts). */
  nextDelayJitter: number;
}

export interface FirstAttemptResult {
  prepared: PreparedDelivery;
  /** Absent when the delivery is skipped. */
  attempt?: AttemptResult;
}

/**
 * A delivery's row prepared and its first attempt made, in one activity: a delivery's workflow
 * then runs two activations where it ran three (the start, the preparation's local activity, the
 * attempt), which is most of what a delivery costs the worker (`npm run bench`, T6). A failed
 * attempt throws as attemptWebhookDelivery does, with the prepared delivery as the failure's
 * details, so the workflow can go on with its schedule; a failure without them (the preparation's
 * own, or a worker lost mid-way) sends the workflow back to preparing on its own.
 */
export function prepareAndAttemptWebhookDelivery(db: DataSource, opts: { allowPrivateTargets: boolean; retryDelaysMs?: number[] }) {
  const prepare = prepareWebhookDelivery(db, opts.retryDelaysMs);
  const attempt = attemptWebhookDelivery(db, opts);
  return async ({ nextDelayJitter, ...ref }: FirstAttemptInput): Promise<FirstAttemptResult> => {
    const prepared = await prepare(ref);
    if (prepared.skip) return { prepared };
    const nextDelay = (prepared.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS)[1];
    const nextAttemptAt = nextDelay === undefined ? null : new Date(Date.now() + jitteredDelay(nextDelay, nextDelayJitter)).toISOString();
    try {
      return {
        prepared,
        attempt: await attempt({ tenantId: ref.tenantId, environment: ref.environment, deliveryId: prepared.deliveryId, nextAttemptAt }),
      };
    } catch (err) {
      const failure = err instanceof ApplicationFailure ? err : null;
      throw ApplicationFailure.create({
        message: err instanceof Error ? err.message : String(err),
        type: failure?.type ?? 'WebhookDeliveryFailed',
        nonRetryable: failure?.nonRetryable ?? false,
        details: [prepared],
        cause: err instanceof Error ? err : undefined,
      });
    }
  };
}
