import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';

const { purgeIdempotencyKeys } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/** Run by a Temporal Schedule: deletes Idempotency-Key records past their 24 h (in bounded batches). */
export async function idempotencyPurgeWorkflow(input: { olderThanMs?: number } = {}): Promise<{ deleted: number }> {
  return purgeIdempotencyKeys({ olderThanMs: input.olderThanMs });
}
