import type { Client } from '@temporalio/client';
import { webhookSweepWorkflow } from '../../workflows/webhook-sweep';
import { ensureSchedule, type EnsuredSchedule, type SweepScheduleOptions } from './schedules';

export const webhookSweepScheduleId = (taskQueue: string) => `webhook-outbox-sweep/${taskQueue}`;

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
