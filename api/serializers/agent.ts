import type { AgentExecution as ExecutionEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import { isoOrNull } from './encode';

export const serializeExecution = (e: ExecutionEntity) => ({
  id: encodeId('agentExecution', e.id),
  agent: e.agent,
  outcome: e.outcome as 'success' | 'failure',
  accepted: e.accepted,
  approvalStatus: e.approvalStatus,
  approvedAt: isoOrNull(e.approvedAt),
  rejectedAt: isoOrNull(e.rejectedAt),
  createdAt: e.createdAt.toISOString(),
});
