import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import { smsStatusSweepWorkflow } from '../../workflows/sms-status-sweep';
import { ensureSchedule, type EnsuredSchedule } from './schedules';

export const smsStatusSweepScheduleId = (taskQueue: string) => `sms-status-sweep/${taskQueue}`;

/**
 * The sweep that asks Twilio for SMS statuses whose callback is overdue, every 10 minutes, where
 * Twilio is configured (idempotent; every worker calls it at start). Where it is not, a schedule
 * left from a deploy that had it is removed: there is nothing to ask.
 */
export async function ensureSmsStatusSweepSchedule(
  client: Client,
  taskQueue: string,
  opts: { twilioConfigured: boolean },
): Promise<EnsuredSchedule | { scheduleId: string; removed: boolean }> {
  const scheduleId = smsStatusSweepScheduleId(taskQueue);
  if (!opts.twilioConfigured) {
    try {
      await client.schedule.getHandle(scheduleId).delete();
      return { scheduleId, removed: true };
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) return { scheduleId, removed: false };
      throw err;
    }
  }
  return ensureSchedule(client, {
    scheduleId,
    workflowType: smsStatusSweepWorkflow,
    taskQueue,
    every: '10 minutes',
    summary: 'Asks Twilio for the status of sent SMS whose status callback is overdue, and records it as the callback would',
  });
}
