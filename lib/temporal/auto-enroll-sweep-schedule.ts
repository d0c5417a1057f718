import type { Client } from '@temporalio/client';
import { autoEnrollSweepWorkflow } from '../../workflows/auto-enroll-sweep';
import { ensureSchedule, type EnsuredSchedule } from './schedules';

export const autoEnrollSweepScheduleId = (taskQueue: string) => `auto-enroll-sweep/${taskQueue}`;

/** The every-minute sweep for automatic enrollments whose workflow never started (idempotent). */
export function ensureAutoEnrollSweepSchedule(client: Client, taskQueue: string): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: autoEnrollSweepScheduleId(taskQueue),
    workflowType: autoEnrollSweepWorkflow,
    taskQueue,
    every: '1 minute',
    summary: 'Starts automatic campaign enrollments whose workflow never started',
  });
}
