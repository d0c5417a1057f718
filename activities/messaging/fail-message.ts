import type { DataSource } from 'typeorm';
import { EngagementEvent, Message } from '../../db/entities';
import { failQueuedMessage } from '../../domain/communications/fail-message';
import { unitOfWork } from '../../domain/unit-of-work';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { MessageRef } from './deliver-message';
import type { MessagingSettings } from './settings';

/**
 * Records that a message could not be sent (the provider refused it, or kept failing), with its
 * `email.failed` / `sms.failed` event: only the attempt that moves it from queued emits, so a
 * retried activity reports it once. A recipient refused for good at sending is a bounce
 * (`email.bounced`), and the delivery attempt that met it failed the message already; the bounce
 * check covers one recorded by an attempt that ran before that attempt also failed the message.
 */
export function failMessage(db: DataSource, workflows: WorkflowStarter, settings: Pick<MessagingSettings, 'afterFailRecorded'> = {}) {
  return async ({ tenantId, environment, messageId, reason }: MessageRef & { reason: string }): Promise<void> => {
    const scope = { tenantId, environment };
    await unitOfWork({ db, workflows, scope }, async (tx) => {
      const message = await tx.repo(Message).findById(messageId);
      if (!message || message.status !== 'queued') return;
      const bounced = message.channel === 'email' && (await tx.repo(EngagementEvent).count({ messageId, type: 'email_bounce' })) > 0;
      await failQueuedMessage(tx, message, reason, { emit: !bounced });
    });
    await settings.afterFailRecorded?.(messageId);
  };
}
