import { IsNull, type FindOptionsWhere } from 'typeorm';
import { Message } from '../../db/entities';
import type { UnitOfWork } from '../unit-of-work';

type FailingMessage = Pick<Message, 'id' | 'channel' | 'to' | 'leadId' | 'campaignId'>;

/**
 * A message reaches `failed` from two states, each by one guarded UPDATE whose winner alone writes
 * the `email.failed` / `sms.failed` event in the same transaction (one event per message, however
 * many retries or repeated notices reach it):
 * - `queued`: it was never handed over (refused at sending, retries ran out, suppressed meanwhile);
 * - `sent` and not yet delivered: Twilio accepted the SMS, then reported it `failed` or
 *   `undelivered` (its status callback). A delivered message stays delivered: Twilio's `delivered`
 *   is final, so a late or out-of-order failure notice changes nothing.
 */
async function moveToFailed(
  tx: UnitOfWork,
  message: FailingMessage,
  reason: string,
  from: FindOptionsWhere<Message>,
  emit: boolean,
): Promise<boolean> {
  const error = reason.slice(0, 1000);
  const changed = await tx.repo(Message).updateWhere({ ...from, id: message.id }, { status: 'failed', error });
  if (changed && emit) {
    await tx.emit(message.channel === 'email' ? 'email.failed' : 'sms.failed', { ...message, reason: error, failedAt: new Date() });
  }
  return changed > 0;
}

/**
 * Moves a queued message to `failed` with its reason and its event. `emit: false` fails it
 * silently, for a failure another event already reports (a hard bounce at sending is
 * `email.bounced`). Returns whether this call moved it.
 */
export function failQueuedMessage(
  tx: UnitOfWork,
  message: FailingMessage,
  reason: string,
  opts: { emit?: boolean } = {},
): Promise<boolean> {
  return moveToFailed(tx, message, reason, { status: 'queued' }, opts.emit !== false);
}

/** Moves a sent, not yet delivered SMS to `failed`: the carrier could not deliver what Twilio accepted. */
export function failUndeliveredMessage(tx: UnitOfWork, message: FailingMessage, reason: string): Promise<boolean> {
  return moveToFailed(tx, message, reason, { status: 'sent', deliveredAt: IsNull() }, true);
}
