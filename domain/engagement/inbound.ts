import type { InboundEvent } from '../../contracts/communication';
import { EngagementEvent, Lead, Message } from '../../db/entities';
import { validationFailed } from '../../lib/errors';
import type { DomainContext } from '../context';
import { recordEngagement } from './record-engagement';

/** A provider's clock may run a little ahead of ours; a notice from further ahead is a mistake. */
const FUTURE_SKEW_MS = 5 * 60_000;

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
  const occurredAt = input.timestamp ? new Date(input.timestamp) : new Date();
  if (occurredAt.getTime() > Date.now() + FUTURE_SKEW_MS) {
    throw validationFailed([{ field: 'timestamp', message: 'Lies in the future; give the time the provider saw the event' }]);
  }
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
