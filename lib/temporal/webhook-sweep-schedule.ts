import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { webhookSweepWorkflow } from '../../workflows/webhook-sweep';

export const webhookSweepScheduleId = (taskQueue: string) => `webhook-outbox-sweep/${taskQueue}`;

export interface SweepScheduleOptions {
  /** Default: every minute. Crash tests shorten it so a lost relay is caught in seconds. */
  everyMs?: number;
  /** Default: the workflow's DEFAULT_SWEEP_MIN_AGE_MS. */
  minAgeMs?: number;
}

/**
 * Creates the periodic outbox sweep, or leaves the existing one alone: every worker calls this at
 * start, so it must be idempotent. Overlapping runs are skipped, not queued.
 */
export async function ensureWebhookSweepSchedule(
  client: Client,
  taskQueue: string,
  opts: SweepScheduleOptions = {},
): Promise<{ scheduleId: string; created: boolean }> {
  const scheduleId = webhookSweepScheduleId(taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: opts.everyMs ?? 60_000 }] },
      action: { type: 'startWorkflow', workflowType: webhookSweepWorkflow, taskQueue, args: [{ minAgeMs: opts.minAgeMs }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { summary: 'Dispatches webhook events that the relay left undispatched' },
    });
    return { scheduleId, created: true };
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return { scheduleId, created: false };
    throw err;
  }
}
