import type { Operation as OperationEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Operation } from '../schemas/operation';

export function serializeOperation(o: OperationEntity): Operation {
  return {
    id: encodeId('operation', o.id),
    type: o.type,
    status: o.status,
    campaignId: encodeId('campaign', o.resourceId),
    total: o.total,
    processed: o.processed,
    workflowId: o.workflowId,
    createdAt: o.createdAt.toISOString(),
    finishedAt: o.finishedAt?.toISOString() ?? null,
  };
}
