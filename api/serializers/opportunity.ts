import type { Opportunity as OpportunityEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Opportunity } from '../../contracts/opportunity';

export function serializeOpportunity(o: OpportunityEntity): Opportunity {
  return {
    id: encodeId('opportunity', o.id),
    leadId: o.leadId ? encodeId('lead', o.leadId) : null,
    name: o.name,
    value: o.value,
    currency: o.currency,
    stage: o.stage,
    stageId: encodeId('status', o.stageId),
    probability: o.probability,
    isClosed: o.status !== 'open',
    isWon: o.status === 'won',
    ownerId: o.ownerUserId ? encodeId('user', o.ownerUserId) : null,
    expectedCloseDate: o.expectedCloseDate,
    closedAt: o.closedAt?.toISOString() ?? null,
    lostReason: o.lostReason,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}
