import type { Client } from '@temporalio/client';
import { webhookSweepWorkflow } from '../../workflows/webhook-sweep';
import { ensureSchedule, type EnsuredSchedule } from './schedules';

export const webhookSweepScheduleId = (taskQueue: string) => `webhook-outbox-sweep/${taskQueue}`;

export interface SweepScheduleOptions {
  /** Default: every minute. Crash tests shorten it so a lost relay is caught in seconds. */
  everyMs?: number;
  /** Default: the workflow's DEFAULT_SWEEP_MIN_AGE_MS. */
  minAgeMs?: number;
}

/** The periodic outbox sweep (idempotent; every worker calls it at start). */
export function ensureWebhookSweepSchedule(client: Client, taskQueue: string, opts: SweepScheduleOptions = {}): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: webhookSweepScheduleId(taskQueue),
    workflowType: webhookSweepWorkflow,
    taskQueue,
    every: opts.everyMs ?? '1 minute',
    args: [{ minAgeMs: opts.minAgeMs }],
    summary: 'Dispatches webhook events that the relay left undispatched',
  });
}
