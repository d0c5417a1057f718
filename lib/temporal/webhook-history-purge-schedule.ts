import type { Client } from '@temporalio/client';
import { webhookHistoryPurgeWorkflow } from '../../workflows/webhook-history-purge';
import { DAY_MS, ensureSchedule, type EnsuredSchedule } from './schedules';

export const webhookHistoryPurgeScheduleId = (taskQueue: string) => `webhook-history-purge/${taskQueue}`;

/** The hourly purge of webhook events (and their deliveries) older than `retentionDays` (idempotent). */
export function ensureWebhookHistoryPurgeSchedule(client: Client, taskQueue: string, retentionDays: number): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: webhookHistoryPurgeScheduleId(taskQueue),
    workflowType: webhookHistoryPurgeWorkflow,
    taskQueue,
    every: '1 hour',
    args: [{ olderThanMs: retentionDays * DAY_MS }],
    summary: `Deletes webhook events and their delivery records older than ${retentionDays} days`,
  });
}
