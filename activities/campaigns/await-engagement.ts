import type { DataSource } from 'typeorm';
import { ScopedData } from '../../db/scoped-data';
import { openEngagementWindow } from '../../domain/campaigns/engagement-window';
import type { EngagementKind, EngagementSignal } from '../../workflows/campaign-signals';
import type { EnrollmentRef } from '.';

/** A condition starts waiting: open its signal window and return the engagements that came before (idempotent). */
export function awaitEngagement(db: DataSource) {
  return (ref: EnrollmentRef & { type: EngagementKind; until: string }): Promise<EngagementSignal[]> =>
    openEngagementWindow(new ScopedData(db.manager, ref), {
      enrollmentId: ref.enrollmentId,
      leadId: ref.leadId,
      campaignId: ref.campaignId,
      type: ref.type,
      until: new Date(ref.until),
    });
}
