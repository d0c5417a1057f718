import type { DataSource } from 'typeorm';
import { CampaignEnrollment, type EnrollmentStatus } from '../../db/entities/campaign-enrollment';
import { unitOfWork } from '../../domain/unit-of-work';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { EnrollmentRef } from '.';

/**
 * Records how the run ended, with its `campaign.enrollment.completed` event in the same
 * transaction. Only an active row changes: an unenroll or campaign completion the API already
 * recorded keeps its own status (and already emitted its event), so a retry emits nothing twice.
 */
export function finishEnrollment(db: DataSource, workflows: WorkflowStarter) {
  return async (ref: EnrollmentRef & { status: EnrollmentStatus; reason: string | null }): Promise<void> => {
    await unitOfWork({ db, workflows, scope: { tenantId: ref.tenantId, environment: ref.environment } }, async (tx) => {
      const changed = await tx
        .repo(CampaignEnrollment)
        .updateWhere({ id: ref.enrollmentId, status: 'active' }, { status: ref.status, exitReason: ref.reason, finishedAt: new Date() });
      if (changed)
        await tx.emit('campaign.enrollment.completed', {
          id: ref.enrollmentId,
          campaignId: ref.campaignId,
          leadId: ref.leadId,
          status: ref.status,
          exitReason: ref.reason,
        });
    });
  };
}
