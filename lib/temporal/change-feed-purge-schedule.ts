import type { Client } from '@temporalio/client';
import { changeFeedPurgeWorkflow } from '../../workflows/change-feed-purge';
import { DAY_MS, ensureSchedule, type EnsuredSchedule } from './schedules';

export const changeFeedPurgeScheduleId = (taskQueue: string) => `change-feed-purge/${taskQueue}`;

/** The hourly purge of the change feeds' deleted records older than `retentionDays` (idempotent). */
export function ensureChangeFeedPurgeSchedule(client: Client, taskQueue: string, retentionDays: number): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: changeFeedPurgeScheduleId(taskQueue),
    workflowType: changeFeedPurgeWorkflow,
    taskQueue,
    every: '1 hour',
    args: [{ olderThanMs: retentionDays * DAY_MS }],
    summary: `Deletes the change feeds' deleted records (leads, opportunities) older than ${retentionDays} days`,
  });
}
