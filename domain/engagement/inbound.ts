import type { InboundEvent } from '../../contracts/communication';
import { EngagementEvent, Lead, Message } from '../../db/entities';
import { validationFailed } from '../../lib/errors';
import type { DomainContext } from '../context';
import { recordEngagement } from './record-engagement';

/**
 * Inbound reply, bounce and delivery notifications from the mail provider. The message is named by ID, or
 * the latest email to that address is taken; a bounce also marks the lead bounced (no more email).
 */
export async function recordInbound(
  ctx: DomainContext,
  type: 'email_reply' | 'email_bounce' | 'email_delivered',
  input: InboundEvent,
): Promise<EngagementEvent> {
  const messages = ctx.data.repo(Message);
  const message = input.messageId
    ? await messages.findById(input.messageId)
    : ((await messages.find({ where: { to: input.email, channel: 'email' }, order: { id: 'DESC' }, take: 1 }))[0] ?? null);
  const lead = message?.leadId
    ? await ctx.data.repo(Lead).findById(message.leadId)
    : input.email
      ? await ctx.data.repo(Lead).findOne({ emailNormalized: input.email.toLowerCase() })
      : null;
  if (!message && !lead)
    throw validationFailed([{ field: input.messageId ? 'messageId' : 'email', message: 'No message or lead matches' }]);
  return recordEngagement(ctx, ctx.scope, {
    type,
    leadId: lead?.id ?? null,
    message,
    workflowExecutionId: null,
    occurredAt: input.timestamp ? new Date(input.timestamp) : new Date(),
    machine: false,
    details: input.reason ? { reason: input.reason } : {},
  });
}
