import { proxyActivities } from '@temporalio/workflow';
import type { LeadActivities } from '../activities/leads';
import type { LeadRef } from './types';

const { detectLeadDuplicates } = proxyActivities<LeadActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
});

/**
 * Runs after a lead is created (workflow ID `lead-dedupe/<leadId>`): finds leads of the same tenant
 * and environment with the same normalised email or phone and records the pairs. The activity is
 * an idempotent upsert, so retries and re-runs are harmless.
 */
export async function leadDedupeWorkflow(input: LeadRef): Promise<{ duplicates: number }> {
  return detectLeadDuplicates(input);
}
