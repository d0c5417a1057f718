import { proxyActivities } from '@temporalio/workflow';
import type { CampaignActivities } from '../activities/campaigns';
import type { PendingEnrollmentRef } from './types';

const { enrollPendingLeads } = proxyActivities<CampaignActivities>({
  // A batch's or a form's leads into every triggered campaign: one start per lead and campaign.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
});

/**
 * Runs after a lead write that starts campaigns (workflow ID `auto-enroll/<pendingId>`): enrolls
 * the leads into the campaigns recorded with the write, then removes the record. The activity is
 * idempotent, so a retry or a second run (the sweep's) enrolls nobody twice.
 */
export async function autoEnrollWorkflow(input: PendingEnrollmentRef): Promise<{ enrolled: number }> {
  return enrollPendingLeads(input);
}
