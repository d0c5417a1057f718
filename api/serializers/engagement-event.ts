import type { EngagementEvent } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { z } from 'zod';
import type { EngagementEventRecord } from '../../contracts/engagement-event';

export function serializeEngagementEvent(e: EngagementEvent): z.output<typeof EngagementEventRecord> {
  return {
    id: encodeId('event', e.id),
    tenantId: encodeId('tenant', e.tenantId),
    type: e.type,
    leadId: e.leadId ? encodeId('lead', e.leadId) : null,
    messageId: e.messageId ? encodeId('message', e.messageId) : null,
    workflowExecutionId: e.workflowExecutionId,
    timestamp: e.occurredAt.toISOString(),
    machine: e.machine,
  };
}
