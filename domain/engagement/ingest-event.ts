import type { EngagementEventCreate } from '../../contracts/engagement-event';
import { EngagementEvent, Lead, Message } from '../../db/entities';
import { validationFailed, type FieldError } from '../../lib/errors';
import { nextIdSql } from '../../db/id-blocks';
import type { DomainContext } from '../context';
import { recordEngagement } from './record-engagement';

/** POST /v1/analytics/events: references must be records of the caller's tenant and environment. */
export async function ingestEngagementEvent(ctx: DomainContext, input: EngagementEventCreate): Promise<EngagementEvent> {
  const errors: FieldError[] = [];
  const message = input.messageId ? await ctx.data.repo(Message).findById(input.messageId) : null;
  if (input.messageId && !message) errors.push({ field: 'messageId', message: 'Message not found' });
  // The lead's check and the event's ID (which its audit entry names) in one round trip.
  const [ahead] = await ctx.data.sql<{ id: string; lead: boolean }>(
    (q) =>
      `SELECT ${nextIdSql(ctx.db, EngagementEvent)} AS id,
        ${input.leadId ? `EXISTS (SELECT 1 FROM ${q.from(Lead, 'l')} WHERE l.id = ${q.value(input.leadId)}::bigint)` : 'true'} AS lead`,
  );
  if (!ahead.lead) errors.push({ field: 'leadId', message: 'Lead not found' });
  if (errors.length) throw validationFailed(errors);
  return recordEngagement(ctx, ctx.scope, {
    id: ahead.id,
    type: input.eventType,
    leadId: input.leadId ?? null,
    message,
    workflowExecutionId: input.workflowExecutionId ?? null,
    occurredAt: input.timestamp ? new Date(input.timestamp) : new Date(),
    machine: false,
  });
}
