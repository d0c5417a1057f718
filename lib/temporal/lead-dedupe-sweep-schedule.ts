import type { Client } from '@temporalio/client';
import { leadDedupeSweepWorkflow } from '../../workflows/lead-dedupe-sweep';
import { ensureSchedule, type EnsuredSchedule } from './schedules';

export const leadDedupeSweepScheduleId = (taskQueue: string) => `lead-dedupe-sweep/${taskQueue}`;

/** The every-minute sweep for leads whose duplicate check never started (idempotent). */
export function ensureLeadDedupeSweepSchedule(client: Client, taskQueue: string): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: leadDedupeSweepScheduleId(taskQueue),
    workflowType: leadDedupeSweepWorkflow,
    taskQueue,
    every: '1 minute',
    summary: 'Starts duplicate detection for leads whose check never started',
  });
}
