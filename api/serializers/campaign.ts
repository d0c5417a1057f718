import type { Campaign as CampaignEntity } from '../../db/entities';
import type { EnrollmentWithProgress } from '../../domain/campaigns/enrollments';
import { encodeId } from '../../lib/ids';
import type { Campaign, Enrollment } from '../../contracts/campaign';

export function serializeCampaign(c: CampaignEntity): Campaign {
  return {
    id: encodeId('campaign', c.id),
    name: c.name,
    description: c.description,
    type: c.type,
    status: c.status,
    workflowId: c.workflowDefinitionId ? encodeId('workflow', c.workflowDefinitionId) : null,
    workflowVersion: c.workflowVersion,
    triggerType: c.triggerType,
    activatedAt: c.activatedAt?.toISOString() ?? null,
    completedAt: c.completedAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function serializeEnrollment({ enrollment: e, progress }: EnrollmentWithProgress): Enrollment {
  return {
    id: encodeId('enrollment', e.id),
    campaignId: encodeId('campaign', e.campaignId),
    leadId: encodeId('lead', e.leadId),
    status: e.status,
    exitReason: e.exitReason,
    workflowId: e.workflowId,
    workflowVersion: e.workflowVersion,
    enrolledAt: e.createdAt.toISOString(),
    finishedAt: e.finishedAt?.toISOString() ?? null,
    progress: progress && { ...progress, waitingFor: progress.waitingFor ?? null },
  };
}
