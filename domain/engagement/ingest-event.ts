import type { EngagementEventCreate } from '../../contracts/engagement-event';
import { EngagementEvent, Lead, Message } from '../../db/entities';
import { validationFailed, type FieldError } from '../../lib/errors';
import { nextId } from '../../db/id-blocks';
import type { DomainContext } from '../context';
import { recordIngestedEngagement } from './grouped-events';
import type { EngagementInput } from './record-engagement';

const LEAD_NOT_FOUND: FieldError = { field: 'leadId', message: 'Lead not found' };

/**
 * POST /v1/analytics/events: references must be records of the caller's tenant and environment.
 * A named lead is checked by the statement that writes the event (recordIngestedEngagement, with
 * checkLeads): an event costs one round trip before its signal, where a lookup first cost two.
 */
export async function ingestEngagementEvent(ctx: DomainContext, input: EngagementEventCreate): Promise<EngagementEvent> {
  const message = input.messageId ? await ctx.data.repo(Message).findById(input.messageId) : null;
  if (input.messageId && !message) {
    // Every bad reference in one answer: the lead is looked up too.
    const errors: FieldError[] = [{ field: 'messageId', message: 'Message not found' }];
    if (input.leadId && !(await ctx.data.repo(Lead).findById(input.leadId))) errors.push(LEAD_NOT_FOUND);
    throw validationFailed(errors);
  }
  // The event's ID is known before the write: its audit entry, written by the same statement, names it.
  const event: EngagementInput & { id: string } = {
    id: await nextId(ctx.db, EngagementEvent),
    type: input.eventType,
    leadId: input.leadId ?? null,
    message,
    workflowExecutionId: input.workflowExecutionId ?? null,
    occurredAt: input.timestamp ? new Date(input.timestamp) : new Date(),
    machine: false,
  };
  const recorded = await recordIngestedEngagement(ctx, event, input.leadId !== undefined);
  if (!recorded) throw validationFailed([LEAD_NOT_FOUND]);
  return recorded;
}
