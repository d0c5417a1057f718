import { randomUUID } from 'node:crypto';
import { SUBJECT_REQUIRED, type SendEmail, type SendSms } from '../../contracts/communication';
import { EmailSuppression, EmailTemplate, Lead, Message, Opportunity } from '../../db/entities';
import type { EmailFormat } from '../../db/entities/message';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { workflowIds } from '../../workflows/ids';
import { sendMessageWorkflow } from '../../workflows/send-message';
import type { DomainContext } from '../context';
import { resultWithin } from '../workflow-result';
import { engagementOfMessages, NO_ENGAGEMENT, type MessageEngagement } from '../engagement/message-engagement';
import { normalizeEmail } from '../normalize';
import { leadVariables } from './lead-variables';
import { inferEmailFormat } from './email-format';
import { RenderedTooLong, renderEmailBody, renderTemplate } from './render-template';
import { assertExists } from '../scoped-lookups';
import { requireSender } from './senders';
import { storeMessageOnce } from './store-message';
import { failQueuedMessage } from './fail-message';
import { stopsEmail } from './email-suppressions';
import { unitOfWork } from '../unit-of-work';

export interface MessageWithEngagement {
  message: Message;
  engagement: MessageEngagement;
}

/** How long the API waits for the delivery workflow before answering with the message still queued. */
const SEND_WAIT_MS = 5_000;

/** What a rendered message may grow to: the subject column's width, a generous email, one SMS (Twilio's 1,600). */
const RENDERED_MAX = { subject: 300, emailBody: 1_000_000, smsBody: 1_600 } as const;

/** Renders one field, answering 422 on it when its placeholders' values would make it too long. */
function renderField<T>(field: string, render: () => T): T {
  try {
    return render();
  } catch (err) {
    if (!(err instanceof RenderedTooLong)) throw err;
    throw validationFailed([{ field, message: `${err.message} once its placeholders are filled; shorten it or the values it uses` }]);
  }
}

async function leadOf(ctx: DomainContext, leadId: string | undefined): Promise<Lead | null> {
  if (!leadId) return null;
  const lead = await ctx.data.repo(Lead).findById(leadId);
  if (!lead) throw validationFailed([{ field: 'leadId', message: 'Lead not found' }]);
  return lead;
}

/**
 * Stores the message, then delivers it in the workflow `email/<id>` or `sms/<id>`, so a provider
 * outage becomes durable retries. The answer waits up to SEND_WAIT_MS: `sent` when delivery was
 * quick, `queued` while it is still being retried.
 */
async function deliver(ctx: DomainContext, message: Message, waitMs: number): Promise<Message> {
  const messageId = encodeId('message', message.id);
  const workflowId = workflowIds.message(message.channel, messageId);
  try {
    await ctx.workflows.start(sendMessageWorkflow, {
      workflowId,
      args: [{ ...ctx.scope, messageId: message.id }],
      searchAttributes: {
        tenantId: encodeId('tenant', ctx.scope.tenantId),
        environment: ctx.scope.environment,
        ...(message.leadId ? { leadId: encodeId('lead', message.leadId) } : {}),
      },
      memo: { summary: `${message.channel} message ${messageId}` },
    });
  } catch (err) {
    logger.warn({ err, workflowId }, 'could not start message delivery');
    // Without the request's audit entry: the request fails (503), and only a succeeding one is audited.
    await unitOfWork({ db: ctx.db, workflows: ctx.workflows, scope: ctx.scope }, (tx) =>
      failQueuedMessage(tx, message, 'Workflow engine unavailable'),
    );
    throw new AppError('service_unavailable', 'The message could not be queued; retry the request');
  }
  // Sent, failed or still queued: the message row says which.
  await resultWithin(ctx, workflowId, waitMs).catch(() => undefined);
  return (await ctx.data.repo(Message).findById(message.id)) ?? message;
}

const UNSUBSCRIBED_ADVICE =
  'Marketing email is not sent to it; send receipts and other transactional mail with category "transactional", or re-subscribe the address with DELETE /v1/suppressions/:id if the person asked for it';
const BOUNCED_ADVICE =
  'No email is sent to it, transactional included: it would bounce again and hurt your sending reputation. If the mailbox works again, re-subscribe the address with DELETE /v1/suppressions/:id';

/**
 * An email to a suppressed address is refused (422 naming the suppression), so an integration
 * learns it instead of mailing someone who opted out or a mailbox that does not exist:
 * - a hard bounce refuses every email, transactional included: it would bounce again, and
 *   repeated bounces hurt the sender's reputation (Postmark and SendGrid block them alike);
 * - an unsubscribe refuses marketing only: receipts and password resets still go. A lead that
 *   unsubscribed is refused marketing at any address: it is the person's choice.
 * A bounce belongs to the address that bounced, which the list holds: the lead's own `bouncedAt`
 * (set when a message to it bounced, at whatever address) does not refuse another address, and
 * re-subscribing an address (DELETE /v1/suppressions/:id, as the message says) makes it sendable again.
 */
async function refuseSuppressed(ctx: DomainContext, to: string, lead: Lead | null, marketing: boolean): Promise<void> {
  const suppression = await ctx.data.repo(EmailSuppression).findOne({ address: normalizeEmail(to) });
  if (suppression && stopsEmail(suppression.reason, marketing)) {
    const id = encodeId('suppression', suppression.id);
    const advice = suppression.reason === 'bounced' ? BOUNCED_ADVICE : UNSUBSCRIBED_ADVICE;
    throw validationFailed([{ field: 'to', message: `${to} is suppressed: it ${suppression.reason} (suppression ${id}). ${advice}` }]);
  }
  if (marketing && lead?.unsubscribedAt) {
    throw validationFailed([
      {
        field: 'leadId',
        message: `The lead unsubscribed on ${lead.unsubscribedAt.toISOString()} (its address: ${lead.email}). ${UNSUBSCRIBED_ADVICE}`,
      },
    ]);
  }
}

/**
 * What an email is made of: the request's body and subject, or the named template's, whose subject
 * is used when the request gives none. A template's subject that renders too long is answered on
 * templateData, as its body is: the values made it so.
 */
async function emailSource(
  ctx: DomainContext,
  input: SendEmail,
): Promise<{ body: string; format: EmailFormat; subject: string; subjectField: 'subject' | 'templateData' }> {
  if (!input.templateId) {
    const body = input.body ?? '';
    // The schema asks for it too; a send is never made with an empty subject.
    if (input.subject === undefined) throw validationFailed([{ field: 'subject', message: SUBJECT_REQUIRED }]);
    return { body, format: input.format ?? inferEmailFormat(body), subject: input.subject, subjectField: 'subject' };
  }
  const template = await ctx.data.repo(EmailTemplate).findById(input.templateId);
  if (!template) throw validationFailed([{ field: 'templateId', message: 'Email template not found' }]);
  return input.subject === undefined
    ? { body: template.body, format: template.format, subject: template.subject, subjectField: 'templateData' }
    : { body: template.body, format: template.format, subject: input.subject, subjectField: 'subject' };
}

export async function sendEmail(ctx: DomainContext, input: SendEmail, waitMs = SEND_WAIT_MS): Promise<Message> {
  const lead = await leadOf(ctx, input.leadId);
  await assertExists(ctx.data, Opportunity, input.opportunityId, 'opportunityId', 'Opportunity');
  const sender = await requireSender(ctx, input.senderId, 'senderId');
  const marketing = (input.category ?? (input.leadId ? 'marketing' : 'transactional')) === 'marketing';
  await refuseSuppressed(ctx, input.to, lead, marketing);
  const { body, format, subject, subjectField } = await emailSource(ctx, input);
  const vars = { ...(lead ? leadVariables(lead) : {}), ...input.templateData };
  const message = await storeMessageOnce(ctx.data, {
    channel: 'email',
    to: input.to,
    subject: renderField(subjectField, () => renderTemplate(subject, vars, { html: false, maxLength: RENDERED_MAX.subject })),
    ...renderField(input.templateId ? 'templateData' : 'body', () => renderEmailBody(body, vars, format, RENDERED_MAX.emailBody)),
    leadId: lead?.id ?? null,
    opportunityId: input.opportunityId ?? null,
    senderId: sender?.id ?? null,
    marketing,
    idempotencyKey: `api/${randomUUID()}`,
  });
  return deliver(ctx, message, waitMs);
}

export async function sendSms(ctx: DomainContext, input: SendSms, waitMs = SEND_WAIT_MS): Promise<Message> {
  const lead = await leadOf(ctx, input.leadId);
  const message = await storeMessageOnce(ctx.data, {
    channel: 'sms',
    to: input.to,
    body: renderField('body', () =>
      renderTemplate(input.body, lead ? leadVariables(lead) : {}, { html: false, maxLength: RENDERED_MAX.smsBody }),
    ),
    leadId: lead?.id ?? null,
    idempotencyKey: `api/${randomUUID()}`,
  });
  return deliver(ctx, message, waitMs);
}

export async function listMessages(
  ctx: DomainContext,
  f: { page: number; limit: number; channel?: string[]; status?: string[]; leadId?: string; campaignId?: string },
) {
  const qb = ctx.data.repo(Message).select('m');
  if (f.channel) qb.andWhere('m.channel IN (:...channel)', { channel: f.channel });
  if (f.status) qb.andWhere('m.status IN (:...status)', { status: f.status });
  if (f.leadId) qb.andWhere('m.lead_id = :leadId', { leadId: f.leadId });
  if (f.campaignId) qb.andWhere('m.campaign_id = :campaignId', { campaignId: f.campaignId });
  const [messages, total] = await qb.orderBy('m.id', 'DESC').page(f.page, f.limit);
  const engagement = await engagementOfMessages(
    ctx.data,
    messages.map((m) => m.id),
  );
  return { rows: messages.map((message) => ({ message, engagement: engagement.get(message.id) ?? NO_ENGAGEMENT })), total };
}

export async function getMessage(ctx: DomainContext, id: string): Promise<MessageWithEngagement> {
  const message = await ctx.data.repo(Message).findById(id);
  if (!message) throw notFound('Message');
  const engagement = await engagementOfMessages(ctx.data, [message.id]);
  return { message, engagement: engagement.get(message.id) ?? NO_ENGAGEMENT };
}
