import type { DataSource } from 'typeorm';
import { purgeIdempotencyKeys, type PurgeIdempotencyKeysInput } from '../../domain/idempotency-purge';
import { purgeWebhookHistory, type PurgeWebhookHistoryInput } from '../../domain/webhooks/purge-history';
import { pruneDeletions } from '../../domain/change-feeds/prune';
import type { PurgeInput } from '../../domain/purge-batches';

/** Periodic clean-up of records past their lifetime (the idempotency-key, webhook-history and change-feed purge schedules). */
export function createHousekeepingActivities(db: DataSource) {
  return {
    purgeIdempotencyKeys: (input: PurgeIdempotencyKeysInput) => purgeIdempotencyKeys(db, input),
    purgeWebhookHistory: (input: PurgeWebhookHistoryInput) => purgeWebhookHistory(db, input),
    pruneDeletions: (input: PurgeInput) => pruneDeletions(db, input),
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
