import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleDescription } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';

/** A day in ms: the retention purges take their age in days. */
export const DAY_MS = 24 * 60 * 60 * 1000;

export interface PeriodicWorkflow {
  scheduleId: string;
  workflowType: Workflow;
  taskQueue: string;
  every: Duration;
  /** The workflow's arguments (default: one empty options object). */
  args?: unknown[];
  summary: string;
}

/** The settings of a sweep's schedule that operators (and crash tests) may change. */
export interface SweepScheduleOptions {
  /** Default: every minute. Crash tests shorten it so a lost start is caught in seconds. */
  everyMs?: number;
  /** Default: the sweep workflow's own. */
  minAgeMs?: number;
}

export interface EnsuredSchedule {
  scheduleId: string;
  created: boolean;
  /** An existing schedule whose interval, workflow, task queue or arguments differed, now brought in line. */
  updated: boolean;
}

/**
 * Creates a schedule that starts `workflowType` periodically, or brings the existing one in line
 * with these settings (a deploy that changes WEBHOOK_SWEEP_INTERVAL_MS must take effect; before,
 * the first settings stayed forever). Every worker calls this at start, so it is idempotent and
 * only writes when something differs. Overlapping runs are skipped.
 */
export async function ensureSchedule(client: Client, s: PeriodicWorkflow): Promise<EnsuredSchedule> {
  const action = { type: 'startWorkflow' as const, workflowType: s.workflowType, taskQueue: s.taskQueue, args: s.args ?? [{}] };
  try {
    await client.schedule.create({
      scheduleId: s.scheduleId,
      spec: { intervals: [{ every: s.every }] },
      action,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { summary: s.summary },
    });
    return { scheduleId: s.scheduleId, created: true, updated: false };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  const handle = client.schedule.getHandle(s.scheduleId);
  if (matches(await handle.describe(), s, action.args)) return { scheduleId: s.scheduleId, created: false, updated: false };
  await handle.update((previous) => ({
    ...previous,
    spec: { intervals: [{ every: s.every }] },
    action,
    policies: { ...previous.policies, overlap: ScheduleOverlapPolicy.SKIP },
  }));
  return { scheduleId: s.scheduleId, created: false, updated: true };
}

function matches(current: ScheduleDescription, s: PeriodicWorkflow, args: unknown[]): boolean {
  const intervals = current.spec.intervals ?? [];
  const seconds = (ms: number) => Math.round(ms / 1000); // the server keeps whole seconds
  const workflowType = typeof s.workflowType === 'string' ? s.workflowType : s.workflowType.name;
  return (
    intervals.length === 1 &&
    seconds(intervals[0].every) === seconds(msToNumber(s.every)) &&
    current.action.workflowType === workflowType &&
    current.action.taskQueue === s.taskQueue &&
    // Arguments come back through JSON, where undefined fields vanish: compare them the same way.
    JSON.stringify(current.action.args) === JSON.stringify(args)
  );
}
