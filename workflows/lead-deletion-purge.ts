import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';

const { pruneLeadDeletions } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: deletes the change feed's deleted-lead rows past their retention (in bounded batches). */
export async function leadDeletionPurgeWorkflow(input: { olderThanMs: number }): Promise<{ deleted: number }> {
  return pruneLeadDeletions({ olderThanMs: input.olderThanMs });
}
