import { patched, proxyActivities } from '@temporalio/workflow';
import type { FileActivities } from '../activities/files';

const { expirePendingUploads, removeDueFileBytes } = proxyActivities<FileActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 3 },
});

/** 24 hours: a presigned upload URL lasts at most an hour, so nothing legitimate is still coming. */
export const DEFAULT_PENDING_UPLOAD_MAX_AGE_MS = 24 * 3600_000;

/**
 * Run by a Temporal Schedule every hour, the file sweep: removes direct uploads that were never
 * completed, then the bytes of deleted files whose removal is due (domain/file-removals.ts). The
 * name is the schedule's since before the second part.
 */
export async function pendingUploadSweepWorkflow(input: { maxAgeMs?: number } = {}): Promise<{ expired: number; removed?: number }> {
  const { expired } = await expirePendingUploads({ maxAgeMs: input.maxAgeMs ?? DEFAULT_PENDING_UPLOAD_MAX_AGE_MS });
  // Runs started before deleted files' bytes were swept end here, as they did.
  if (!patched('remove-deleted-file-bytes')) return { expired };
  const { removed } = await removeDueFileBytes();
  return { expired, removed };
}
