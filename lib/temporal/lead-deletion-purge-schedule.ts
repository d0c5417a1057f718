import type { Client } from '@temporalio/client';
import { leadDeletionPurgeWorkflow } from '../../workflows/lead-deletion-purge';
import { ensureSchedule, type EnsuredSchedule } from './schedules';

export const leadDeletionPurgeScheduleId = (taskQueue: string) => `lead-deletion-purge/${taskQueue}`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The hourly purge of the change feed's deleted leads older than `retentionDays` (idempotent). */
export function ensureLeadDeletionPurgeSchedule(client: Client, taskQueue: string, retentionDays: number): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: leadDeletionPurgeScheduleId(taskQueue),
    workflowType: leadDeletionPurgeWorkflow,
    taskQueue,
    every: '1 hour',
    args: [{ olderThanMs: retentionDays * DAY_MS }],
    summary: `Deletes the change feed's deleted leads older than ${retentionDays} days`,
  });
}
