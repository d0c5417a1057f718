import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';

export interface PeriodicWorkflow {
  scheduleId: string;
  workflowType: Workflow;
  taskQueue: string;
  every: Duration;
  /** The workflow's arguments (default: one empty options object). */
  args?: unknown[];
  summary: string;
}

/**
 * Creates a schedule that starts `workflowType` periodically, or leaves the existing one alone:
 * every worker calls this at start, so it must be idempotent. Overlapping runs are skipped.
 */
export async function ensureSchedule(client: Client, s: PeriodicWorkflow): Promise<{ scheduleId: string; created: boolean }> {
  try {
    await client.schedule.create({
      scheduleId: s.scheduleId,
      spec: { intervals: [{ every: s.every }] },
      action: { type: 'startWorkflow', workflowType: s.workflowType, taskQueue: s.taskQueue, args: s.args ?? [{}] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { summary: s.summary },
    });
    return { scheduleId: s.scheduleId, created: true };
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return { scheduleId: s.scheduleId, created: false };
    throw err;
  }
}
