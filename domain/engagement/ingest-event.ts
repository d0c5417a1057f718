import type { EngagementEventCreate } from '../../api/schemas/engagement-event';
import { EngagementEvent, Lead, Message } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { validationFailed, type FieldError } from '../../lib/errors';
import type { DomainContext } from '../context';
import { recordEngagement } from './record-engagement';

/** POST /v1/analytics/events: references must be records of the caller's tenant and environment. */
export async function ingestEngagementEvent(ctx: DomainContext, input: EngagementEventCreate): Promise<EngagementEvent> {
  const errors: FieldError[] = [];
  const message = input.messageId ? await scoped(ctx.db.manager, Message, ctx.scope).findById(input.messageId) : null;
  if (input.messageId && !message) errors.push({ field: 'messageId', message: 'Message not found' });
  if (input.leadId && !(await scoped(ctx.db.manager, Lead, ctx.scope).findById(input.leadId))) {
    errors.push({ field: 'leadId', message: 'Lead not found' });
  }
  if (errors.length) throw validationFailed(errors);
  return recordEngagement(ctx, ctx.scope, {
    type: input.eventType,
    leadId: input.leadId ?? null,
    message,
    workflowExecutionId: input.workflowExecutionId ?? null,
    occurredAt: input.timestamp ? new Date(input.timestamp) : new Date(),
    machine: false,
  });
}
