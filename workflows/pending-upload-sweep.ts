import { proxyActivities } from '@temporalio/workflow';
import type { FileActivities } from '../activities/files';

const { expirePendingUploads } = proxyActivities<FileActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 3 },
});

/** 24 hours: a presigned upload URL lasts at most an hour, so nothing legitimate is still coming. */
export const DEFAULT_PENDING_UPLOAD_MAX_AGE_MS = 24 * 3600_000;

/** Run by a Temporal Schedule every hour: removes direct uploads that were never completed. */
export async function pendingUploadSweepWorkflow(input: { maxAgeMs?: number } = {}): Promise<{ expired: number }> {
  return expirePendingUploads({ maxAgeMs: input.maxAgeMs ?? DEFAULT_PENDING_UPLOAD_MAX_AGE_MS });
}
