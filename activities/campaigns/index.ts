import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { ScopeRef } from '../../workflows/types';
import { awaitEngagement } from './await-engagement';
import { checkLeadEligibility, leadHasStatus } from './check-lead';
import { enrollPendingLeads, sweepPendingEnrollments } from './enroll-pending';
import { finishEnrollment } from './finish-enrollment';
import { prepareCampaignMessage } from './prepare-campaign-message';
import { runCampaignAction } from './run-campaign-action';

/** Database keys of one enrollment, passed to every campaign activity. */
export interface EnrollmentRef extends ScopeRef {
  campaignId: string;
  leadId: string;
  enrollmentId: string;
}

export function createCampaignActivities(db: DataSource, workflows: WorkflowStarter) {
  return {
    checkLeadEligibility: checkLeadEligibility(db),
    leadHasStatus: leadHasStatus(db),
    awaitEngagement: awaitEngagement(db),
    prepareCampaignMessage: prepareCampaignMessage(db),
    runCampaignAction: runCampaignAction(db, workflows),
    finishEnrollment: finishEnrollment(db, workflows),
    enrollPendingLeads: enrollPendingLeads(db, workflows),
    sweepPendingEnrollments: sweepPendingEnrollments(db, workflows),
  };
}

export type CampaignActivities = ReturnType<typeof createCampaignActivities>;
