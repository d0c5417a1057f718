import type { DataSource } from 'typeorm';
import { Message } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import type { MessageRef } from './deliver-message';

/** Records that a message could not be sent (the provider refused it, or kept failing). */
export function failMessage(db: DataSource) {
  return async ({ tenantId, environment, messageId, reason }: MessageRef & { reason: string }): Promise<void> => {
    await scoped(db.manager, Message, { tenantId, environment }).updateWhere(
      { id: messageId, status: 'queued' },
      { status: 'failed', error: reason.slice(0, 1000) },
    );
  };
}
