import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { LeadActivities } from '../activities/leads';
import type { LeadRef } from './types';

const checkOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
} as const;
const { detectLeadDuplicates } = proxyActivities<LeadActivities>(checkOptions);
/**
 * The check is a local activity: it runs in the worker that runs the workflow, without a round trip
 * through the task queue, and is recorded as a marker. That cuts the Temporal server's CPU per check
 * by about 40 % (docs/decisions.md), and a burst of leads sharing a key starts checks by the dozen.
 */
const { detectLeadDuplicates: detectLocally } = proxyLocalActivities<LeadActivities>(checkOptions);

/**
 * Runs after a lead is created (workflow ID `lead-dedupe/<leadId>`): finds leads of the same tenant
 * and environment with the same normalised email or phone and records the pairs. The activity is
 * an idempotent upsert, so retries and re-runs are harmless.
 */
export async function leadDedupeWorkflow(input: LeadRef): Promise<{ duplicates: number }> {
  // Runs started before the local activity replay their recorded (remote) activity.
  return patched('lead-dedupe-local-activity') ? detectLocally(input) : detectLeadDuplicates(input);
}
