import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';

const { purgeWebhookHistory } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: deletes webhook events past their retention, with their deliveries (in bounded batches). */
export async function webhookHistoryPurgeWorkflow(input: { olderThanMs: number }): Promise<{ deleted: number }> {
  return purgeWebhookHistory({ olderThanMs: input.olderThanMs });
}
