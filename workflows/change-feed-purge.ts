import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';

const { pruneDeletions } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: deletes the change feeds' deleted records past their retention (in bounded batches). */
export async function changeFeedPurgeWorkflow(input: { olderThanMs: number }): Promise<{ deleted: number }> {
  return pruneDeletions({ olderThanMs: input.olderThanMs });
}
