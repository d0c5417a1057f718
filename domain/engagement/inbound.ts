import type { InboundEvent } from '../../contracts/communication';
import { EngagementEvent, Lead, Message } from '../../db/entities';
import { validationFailed } from '../../lib/errors';
import type { DomainContext } from '../context';
import { recordEngagement } from './record-engagement';

/**
 * Inbound reply, bounce and delivery notifications from the mail provider. The message is named by
 * ID (an email this service sent), or the latest sent email to that address is taken, the address
 * compared as suppressions compare it (case-insensitively); a bounce also marks the lead bounced (no
 * more email). A notice about an SMS, or about an email that was never sent, is refused: its bounce
 * would suppress an address nothing was sent to.
 */
export async function recordInbound(
  ctx: DomainContext,
  type: 'email_reply' | 'email_bounce' | 'email_delivered',
  input: InboundEvent,
): Promise<EngagementEvent> {
  // A provider's clock may run ahead of ours: a time not yet reached is taken as now, so a lead's
  // bouncedAt never lies in the future.
  const now = new Date();
  const reported = input.timestamp ? new Date(input.timestamp) : now;
  const occurredAt = reported > now ? now : reported;
  const message = input.messageId ? await namedMessage(ctx, input.messageId) : await latestSentEmail(ctx, input.email!);
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
    occurredAt,
    machine: false,
    details: input.reason ? { reason: input.reason } : {},
  });
}

async function namedMessage(ctx: DomainContext, id: string): Promise<Message | null> {
  const message = await ctx.data.repo(Message).findById(id);
  if (message?.channel === 'sms') {
    throw validationFailed([{ field: 'messageId', message: 'Names an SMS; reply, bounce and delivery notices are for emails' }]);
  }
  if (message?.status === 'failed') {
    throw validationFailed([{ field: 'messageId', message: 'Names an email that was never sent (its status is failed)' }]);
  }
  return message;
}

const latestSentEmail = async (ctx: DomainContext, email: string): Promise<Message | null> =>
  ctx.data
    .repo(Message)
    .select('m')
    .andWhere("m.channel = 'email' AND m.status = 'sent' AND lower(m.to_address) = lower(:email)", { email })
    .orderBy('m.id', 'DESC')
    .limit(1)
    .getOne();
