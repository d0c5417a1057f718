import type { EngagementEvent } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { z } from 'zod';
import type { EngagementEventRecord } from '../../contracts/engagement-event';

export function serializeEngagementEvent(e: EngagementEvent): z.output<typeof EngagementEventRecord> {
  return {
    id: encodeId('engagementEvent', e.id),
    tenantId: encodeId('tenant', e.tenantId),
    type: e.type,
    leadId: e.leadId ? encodeId('lead', e.leadId) : null,
    messageId: e.messageId ? encodeId('message', e.messageId) : null,
    campaignId: e.campaignId ? encodeId('campaign', e.campaignId) : null,
    workflowExecutionId: e.workflowExecutionId,
    timestamp: e.occurredAt.toISOString(),
    machine: e.machine,
    machineReason: typeof e.details.machineReason === 'string' ? e.details.machineReason : null,
    userAgent: typeof e.details.userAgent === 'string' ? e.details.userAgent : null,
  };
}
