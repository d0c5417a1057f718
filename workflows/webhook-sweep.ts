import { proxyActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks';

const { sweepWebhookOutbox } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/** Events younger than this may still be on their way through the relay; leave them to it. */
export const DEFAULT_SWEEP_MIN_AGE_MS = 10_000;

/** Run by a Temporal Schedule every minute: dispatches outbox events that the relay left behind. */
export async function webhookSweepWorkflow(input: { minAgeMs?: number } = {}): Promise<{ dispatched: number }> {
  return sweepWebhookOutbox({ minAgeMs: input.minAgeMs ?? DEFAULT_SWEEP_MIN_AGE_MS });
}
