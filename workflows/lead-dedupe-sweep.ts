import { proxyActivities } from '@temporalio/workflow';
import type { LeadActivities } from '../activities/leads';

const { sweepUncheckedLeads } = proxyActivities<LeadActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3 },
});

/** Leads younger than this may still have their start queued in the API process; leave them to it. */
export const DEFAULT_DEDUPE_SWEEP_MIN_AGE_MS = 30_000;

/**
 * Run by a Temporal Schedule every minute: starts duplicate detection that never started, for at
 * most `limit` leads, oldest first (default 1000; an operator's run can take fewer).
 */
export async function leadDedupeSweepWorkflow(input: { minAgeMs?: number; limit?: number } = {}): Promise<{ started: number }> {
  return sweepUncheckedLeads({ minAgeMs: input.minAgeMs ?? DEFAULT_DEDUPE_SWEEP_MIN_AGE_MS, limit: input.limit });
}
