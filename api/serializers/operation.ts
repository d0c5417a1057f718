import type { Operation as OperationEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Operation } from '../../contracts/operation';

export function serializeOperation(o: OperationEntity): Operation {
  return {
    id: encodeId('operation', o.id),
    type: o.type,
    status: o.status,
    campaignId: o.type.startsWith('campaign.') ? encodeId('campaign', o.resourceId) : null,
    webhookId: o.type === 'webhook.recover' ? encodeId('webhook', o.resourceId) : null,
    total: o.total,
    processed: o.processed,
    workflowId: o.workflowId,
    createdAt: o.createdAt.toISOString(),
    finishedAt: o.finishedAt?.toISOString() ?? null,
  };
}
