import type { Client } from '@temporalio/client';
import { autoEnrollSweepWorkflow } from '../../workflows/auto-enroll-sweep';
import { ensureSchedule, type EnsuredSchedule, type SweepScheduleOptions } from './schedules';

export const autoEnrollSweepScheduleId = (taskQueue: string) => `auto-enroll-sweep/${taskQueue}`;

/** The periodic sweep (every minute by default) for automatic enrollments whose workflow never started (idempotent). */
export function ensureAutoEnrollSweepSchedule(
  client: Client,
  taskQueue: string,
  opts: SweepScheduleOptions = {},
): Promise<EnsuredSchedule> {
  return ensureSchedule(client, {
    scheduleId: autoEnrollSweepScheduleId(taskQueue),
    workflowType: autoEnrollSweepWorkflow,
    taskQueue,
    every: opts.everyMs ?? '1 minute',
    args: [{ minAgeMs: opts.minAgeMs }],
    summary: 'Starts automatic campaign enrollments whose workflow never started',
  });
}
