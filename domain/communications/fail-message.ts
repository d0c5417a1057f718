import { Message } from '../../db/entities';
import type { UnitOfWork } from '../unit-of-work';

type FailingMessage = Pick<Message, 'id' | 'channel' | 'to' | 'leadId' | 'campaignId'>;

/**
 * Moves a queued message to `failed` with its reason and, in the same transaction, writes its
 * `email.failed` / `sms.failed` event. Only the call that moves it from queued emits, so a retried
 * activity, or a second path reaching a message already failed (or sent), reports nothing more:
 * one event per message. `emit: false` fails it silently, for a failure another event already
 * reports (a hard bounce at sending is `email.bounced`). Returns whether this call moved it.
 */
export async function failQueuedMessage(
  tx: UnitOfWork,
  message: FailingMessage,
  reason: string,
  opts: { emit?: boolean } = {},
): Promise<boolean> {
  const error = reason.slice(0, 1000);
  const changed = await tx.repo(Message).updateWhere({ id: message.id, status: 'queued' }, { status: 'failed', error });
  if (changed && opts.emit !== false) {
    await tx.emit(message.channel === 'email' ? 'email.failed' : 'sms.failed', { ...message, reason: error, failedAt: new Date() });
  }
  return changed > 0;
}
