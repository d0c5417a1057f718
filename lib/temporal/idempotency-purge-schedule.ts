import type { Client } from '@temporalio/client';
import { idempotencyPurgeWorkflow } from '../../workflows/idempotency-purge';
import { ensureSchedule } from './schedules';

export const idempotencyPurgeScheduleId = (taskQueue: string) => `idempotency-purge/${taskQueue}`;

/** The every-10-minutes purge of Idempotency-Key records older than 24 h (idempotent). */
export function ensureIdempotencyPurgeSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  return ensureSchedule(client, {
    scheduleId: idempotencyPurgeScheduleId(taskQueue),
    workflowType: idempotencyPurgeWorkflow,
    taskQueue,
    every: '10 minutes',
    summary: 'Deletes Idempotency-Key records older than 24 hours',
  });
}
