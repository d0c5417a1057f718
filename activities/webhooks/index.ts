import type { DataSource } from 'typeorm';
import { sweepOutbox } from '../../domain/webhooks/relay';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { attemptWebhookDelivery } from './attempt-delivery';
import { failWebhookDelivery } from './fail-delivery';
import { prepareAndAttemptWebhookDelivery } from './first-attempt';
import { prepareWebhookDelivery } from './prepare-delivery';

export interface WebhookActivityOptions {
  /** From config WEBHOOK_ALLOW_PRIVATE_TARGETS (dev and tests only). */
  allowPrivateTargets: boolean;
  /** Consecutive failed deliveries after which an endpoint is disabled. */
  autoDisableAfter?: number;
  /**
   * Delays before each attempt, replacing the ~28 h schedule (docs/decisions.md, "Webhooks") (tests of a receiver that is
   * down for a while). The workflow receives it through an activity result, so it stays deterministic.
   */
  retryDelaysMs?: number[];
}

export function createWebhookActivities(db: DataSource, workflows: WorkflowStarter, opts: WebhookActivityOptions) {
  return {
    prepareWebhookDelivery: prepareWebhookDelivery(db, opts.retryDelaysMs),
    attemptWebhookDelivery: attemptWebhookDelivery(db, opts),
    prepareAndAttemptWebhookDelivery: prepareAndAttemptWebhookDelivery(db, opts),
    failWebhookDelivery: failWebhookDelivery(db, { autoDisableAfter: opts.autoDisableAfter ?? 5 }),
    sweepWebhookOutbox: (input: { minAgeMs: number }) => sweepOutbox(db, workflows, input),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
