import type { Client } from '@temporalio/client';
import { messagingSettingsFromConfig } from '../activities/messaging/settings';
import type { Config } from '../lib/config';
import { ensureAutoEnrollSweepSchedule } from '../lib/temporal/auto-enroll-sweep-schedule';
import { ensureIdempotencyPurgeSchedule } from '../lib/temporal/idempotency-purge-schedule';
import { ensureChangeFeedPurgeSchedule } from '../lib/temporal/change-feed-purge-schedule';
import { ensureLeadDedupeSweepSchedule } from '../lib/temporal/lead-dedupe-sweep-schedule';
import { ensurePendingUploadSweepSchedule } from '../lib/temporal/pending-upload-sweep-schedule';
import { ensureSmsStatusSweepSchedule } from '../lib/temporal/sms-status-sweep-schedule';
import { ensureWebhookHistoryPurgeSchedule } from '../lib/temporal/webhook-history-purge-schedule';
import { ensureWebhookSweepSchedule } from '../lib/temporal/webhook-sweep-schedule';

/** The periodic sweeps and purges every worker process makes sure exist on its queue at start (idempotent). */
export async function ensureWorkerSchedules(client: Client, taskQueue: string, config: Config): Promise<void> {
  await ensureWebhookSweepSchedule(client, taskQueue, {
    everyMs: config.WEBHOOK_SWEEP_INTERVAL_MS,
    minAgeMs: config.WEBHOOK_SWEEP_MIN_AGE_MS,
  });
  await ensureLeadDedupeSweepSchedule(client, taskQueue);
  await ensureAutoEnrollSweepSchedule(client, taskQueue, {
    everyMs: config.AUTO_ENROLL_SWEEP_INTERVAL_MS,
    minAgeMs: config.AUTO_ENROLL_SWEEP_MIN_AGE_MS,
  });
  await ensureIdempotencyPurgeSchedule(client, taskQueue);
  await ensureWebhookHistoryPurgeSchedule(client, taskQueue, config.WEBHOOK_RETENTION_DAYS);
  await ensureChangeFeedPurgeSchedule(client, taskQueue, config.CHANGE_FEED_RETENTION_DAYS);
  await ensurePendingUploadSweepSchedule(client, taskQueue);
  // Twilio is configured as the worker sends SMS through it: account, auth token and sender.
  await ensureSmsStatusSweepSchedule(client, taskQueue, { twilioConfigured: messagingSettingsFromConfig(config).twilio !== undefined });
}
