import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { IsNull } from 'typeorm';
import { Message } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { scoped } from '../../db/scoped-repository';
import { stopsEmail, suppressionOf } from '../../domain/communications/email-suppressions';
import { failQueuedMessage } from '../../domain/communications/fail-message';
import { markMessageSent } from '../../domain/communications/mark-sent';
import { unitOfWork } from '../../domain/unit-of-work';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { composeEmail } from '../../domain/communications/compose-email';
import { encodeId } from '../../lib/ids';
import type { ScopeRef } from '../../workflows/types';
import { config } from '../../lib/config';
import { finishBounceAtSending, recordBounceAtSending } from './bounce-at-sending';
import { RECIPIENT_REJECTED, smtpSender, type EmailSender } from './email-transport';
import { sendingIdentity } from './sending-identity';
import type { MessagingSettings } from './settings';
import { twilioSender, type SmsSender } from './sms-transport';

export type MessageRef = ScopeRef & { messageId: string };

/**
 * Sends one stored message at most once, however often Temporal runs this:
 * 1. a message that is no longer queued is done: return its status (after finishing a bounce an
 *    earlier attempt recorded); an email whose address bounced since it was queued fails unsent,
 *    and so does a marketing one whose address unsubscribed;
 * 2. sandbox, or no provider configured: the capture transport marks it sent (sandbox: true);
 * 3. otherwise the provider-attempt marker is written BEFORE the provider call and the message is
 *    marked sent right after. A provider error clears the marker (the retry sends again); finding
 *    the marker set means an earlier attempt stopped between the call and the mark, so the provider
 *    may have accepted it: the message is marked sent without calling again. The residual window is
 *    a process dying during the provider call: that message may be lost (at most once, never twice).
 *    Email carries a deterministic Message-ID, so even a duplicate would be recognisable.
 */
export function deliverMessage(db: DataSource, workflows: WorkflowStarter, settings: MessagingSettings) {
  const sendEmail: EmailSender | null = settings.smtpUrl ? smtpSender(settings.smtpUrl) : null;
  const sendSms: SmsSender | null = settings.twilio ? twilioSender(settings.twilio) : null;
  return async ({ tenantId, environment, messageId }: MessageRef): Promise<{ status: 'sent' | 'failed' }> => {
    const scope = { tenantId, environment };
    const repo = scoped(db.manager, Message, scope);
    const message = await repo.findById(messageId);
    if (!message) throw ApplicationFailure.nonRetryable(`Message ${messageId} not found`, 'MessageMissing');
    if (message.status !== 'queued') {
      // An earlier attempt may have recorded a bounce and stopped before applying all of it.
      if (message.status === 'failed' && message.channel === 'email') await finishBounceAtSending({ db, workflows }, scope, message);
      return { status: message.status };
    }
    const sent = (set: Partial<Message>) => unitOfWork({ db, workflows, scope }, (tx) => markMessageSent(tx, message, set));
    if (message.providerAttemptedAt) {
      await sent({});
      return { status: 'sent' };
    }
    // The address may have unsubscribed or bounced while the email waited (a provider outage, a retry).
    const suppressed = message.channel === 'email' ? await suppressionOf(new ScopedData(db.manager, scope), message.to) : null;
    if (suppressed && stopsEmail(suppressed, message.marketing)) {
      const error = `Not sent: the address ${suppressed} after the email was queued`;
      await unitOfWork({ db, workflows, scope }, (tx) => failQueuedMessage(tx, message, error));
      return { status: 'failed' };
    }
    const provider = message.channel === 'email' ? sendEmail : sendSms;
    if (environment === 'sandbox' || !provider) {
      await sent({ sandbox: true, providerMessageId: `capture-${encodeId('message', message.id)}` });
      return { status: 'sent' };
    }
    const identity =
      message.channel === 'email'
        ? await sendingIdentity(db, scope, message, {
            emailFrom: settings.emailFrom,
            dkimKeySecret: settings.dkimKeySecret ?? config.DKIM_KEY_SECRET,
          })
        : null;
    const emailMessageId = `<${encodeId('message', message.id)}@${identity?.domain ?? 'localhost'}>`;
    const claimed = await repo.updateWhere(
      { id: message.id, status: 'queued', providerAttemptedAt: IsNull() },
      { providerAttemptedAt: new Date(), providerMessageId: message.channel === 'email' ? emailMessageId : null },
    );
    if (!claimed) throw new Error('Another attempt claimed this message; the next attempt will settle it');
    let providerMessageId = emailMessageId;
    try {
      if (identity) {
        const composed = composeEmail(
          {
            subject: message.subject ?? '',
            body: message.body,
            format: message.format,
            trackedLinks: message.trackedLinks,
            tenantId: encodeId('tenant', tenantId),
            environment,
            messageId: encodeId('message', message.id),
            track: message.leadId !== null,
            // Marketing carries the link whoever it went to: an address without a lead is suppressed all the same.
            unsubscribe: message.marketing,
          },
          settings.tracking,
        );
        await (provider as EmailSender)({
          ...composed,
          to: message.to,
          from: identity.from,
          replyTo: identity.replyTo,
          messageId: emailMessageId,
          dkim: identity.dkim,
        });
      } else {
        providerMessageId = await (provider as SmsSender)({
          to: message.to,
          body: message.body,
          messageId: encodeId('message', message.id),
        });
      }
    } catch (err) {
      await repo.updateWhere({ id: message.id }, { providerAttemptedAt: null });
      // A hard bounce at sending is recorded as one reported later would be, once per message.
      if (err instanceof ApplicationFailure && err.type === RECIPIENT_REJECTED) {
        await recordBounceAtSending({ db, workflows }, scope, message, err.message);
      }
      throw err;
    }
    await settings.afterProviderAccept?.(message);
    await sent({ providerMessageId });
    return { status: 'sent' };
  };
}
