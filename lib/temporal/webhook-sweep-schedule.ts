import type { Client } from '@temporalio/client';
import { webhookSweepWorkflow } from '../../workflows/webhook-sweep';
import { ensureSchedule } from './schedules';

export const webhookSweepScheduleId = (taskQueue: string) => `webhook-outbox-sweep/${taskQueue}`;

/** The every-minute outbox sweep (idempotent; every worker calls it at start). */
export function ensureWebhookSweepSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  return ensureSchedule(client, {
    scheduleId: webhookSweepScheduleId(taskQueue),
    workflowType: webhookSweepWorkflow,
    taskQueue,
    every: '1 minute',
    summary: 'Dispatches webhook events that the relay left undispatched',
  });
}
