import type { DataSource } from 'typeorm';
import { purgeIdempotencyKeys, type PurgeIdempotencyKeysInput } from '../../domain/idempotency-purge';
import { purgeWebhookHistory, type PurgeWebhookHistoryInput } from '../../domain/webhooks/purge-history';

/** Periodic clean-up of records past their lifetime (the idempotency-key and webhook-history purge schedules). */
export function createHousekeepingActivities(db: DataSource) {
  return {
    purgeIdempotencyKeys: (input: PurgeIdempotencyKeysInput) => purgeIdempotencyKeys(db, input),
    purgeWebhookHistory: (input: PurgeWebhookHistoryInput) => purgeWebhookHistory(db, input),
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
