import type { Client } from '@temporalio/client';
import { pendingUploadSweepWorkflow } from '../../workflows/pending-upload-sweep';
import { ensureSchedule } from './schedules';

export const pendingUploadSweepScheduleId = (taskQueue: string) => `pending-upload-sweep/${taskQueue}`;

/** The hourly removal of direct uploads never completed within 24 h (idempotent; every worker calls it at start). */
export function ensurePendingUploadSweepSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  return ensureSchedule(client, {
    scheduleId: pendingUploadSweepScheduleId(taskQueue),
    workflowType: pendingUploadSweepWorkflow,
    taskQueue,
    every: '1 hour',
    summary: 'Deletes direct uploads never completed within 24 hours (row and stored object)',
  });
}
