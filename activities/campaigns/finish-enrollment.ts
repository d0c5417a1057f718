import type { DataSource } from 'typeorm';
import { CampaignEnrollment, type EnrollmentStatus } from '../../db/entities/campaign-enrollment';
import { scoped } from '../../db/scoped-repository';
import type { EnrollmentRef } from '.';

/**
 * Records how the run ended. Only an active row changes: an unenroll or campaign completion the
 * API already recorded keeps its own status.
 */
export function finishEnrollment(db: DataSource) {
  return async (ref: EnrollmentRef & { status: EnrollmentStatus; reason: string | null }): Promise<void> => {
    await scoped(db.manager, CampaignEnrollment, ref).updateWhere(
      { id: ref.enrollmentId, status: 'active' },
      { status: ref.status, exitReason: ref.reason, finishedAt: new Date() },
    );
  };
}
