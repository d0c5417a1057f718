import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { webhookSweepWorkflow } from '../../workflows/webhook-sweep';

export const webhookSweepScheduleId = (taskQueue: string) => `webhook-outbox-sweep/${taskQueue}`;

/**
 * Creates the every-minute outbox sweep, or leaves the existing one alone: every worker calls
 * this at start, so it must be idempotent. Overlapping runs are skipped, not queued.
 */
export async function ensureWebhookSweepSchedule(client: Client, taskQueue: string): Promise<{ scheduleId: string; created: boolean }> {
  const scheduleId = webhookSweepScheduleId(taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 minute' }] },
      action: { type: 'startWorkflow', workflowType: webhookSweepWorkflow, taskQueue, args: [{}] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { summary: 'Dispatches webhook events that the relay left undispatched' },
    });
    return { scheduleId, created: true };
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return { scheduleId, created: false };
    throw err;
  }
}
