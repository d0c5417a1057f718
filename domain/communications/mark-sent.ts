import { type FindOptionsWhere } from 'typeorm';
import { Message } from '../../db/entities';
import type { UnitOfWork } from '../unit-of-work';

type SentMessage = Pick<Message, 'id' | 'channel' | 'to' | 'leadId' | 'campaignId' | 'sandbox'>;

/**
 * Moves a queued message to `sent` and writes its `email.sent` / `sms.sent` event in the same
 * transaction. Two paths call it: the delivery activity once the provider accepted the message,
 * and Twilio's status callback when it reports an SMS whose send has not been marked yet (Twilio
 * answers within milliseconds). The guarded UPDATE lets only one of them move it, and only that one
 * emits, so the message reports `sent` once, whoever gets there first. `where` narrows the guard.
 */
export async function markMessageSent(
  tx: UnitOfWork,
  message: SentMessage,
  set: Partial<Message>,
  where: FindOptionsWhere<Message> = {},
): Promise<boolean> {
  const sentAt = new Date();
  const changed = await tx.repo(Message).updateWhere({ ...where, id: message.id, status: 'queued' }, { status: 'sent', sentAt, ...set });
  if (changed)
    await tx.emit(message.channel === 'email' ? 'email.sent' : 'sms.sent', {
      ...message,
      sentAt,
      sandbox: set.sandbox ?? message.sandbox,
    });
  return changed > 0;
}
