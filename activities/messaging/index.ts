import type { DataSource } from 'typeorm';
import { deliverMessage } from './deliver-message';
import { failMessage } from './fail-message';
import type { MessagingSettings } from './settings';

export function createMessagingActivities(db: DataSource, settings: MessagingSettings) {
  return {
    deliverMessage: deliverMessage(db, settings),
    failMessage: failMessage(db),
  };
}

export type MessagingActivities = ReturnType<typeof createMessagingActivities>;
