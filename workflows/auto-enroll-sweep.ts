import { proxyActivities } from '@temporalio/workflow';
import type { CampaignActivities } from '../activities/campaigns';

const { sweepPendingEnrollments } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/** Younger pending enrollments may still have their start queued in the API process; leave them to it. */
export const DEFAULT_AUTO_ENROLL_SWEEP_MIN_AGE_MS = 30_000;

/**
 * Run by a Temporal Schedule every minute: starts the auto-enroll workflow of pending enrollments
 * whose start was lost, at most `limit` of them, oldest first (default 1000).
 */
export async function autoEnrollSweepWorkflow(input: { minAgeMs?: number; limit?: number } = {}): Promise<{ started: number }> {
  return sweepPendingEnrollments({ minAgeMs: input.minAgeMs ?? DEFAULT_AUTO_ENROLL_SWEEP_MIN_AGE_MS, limit: input.limit });
}
