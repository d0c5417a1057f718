import type { DataSource } from 'typeorm';
import { purgeIdempotencyKeys, type PurgeIdempotencyKeysInput } from '../../domain/idempotency-purge';
import { purgeWebhookHistory, type PurgeWebhookHistoryInput } from '../../domain/webhooks/purge-history';
import { pruneLeadDeletions } from '../../domain/leads/prune-deletions';
import type { PurgeInput } from '../../domain/purge-batches';

/** Periodic clean-up of records past their lifetime (the idempotency-key, webhook-history and lead-deletion purge schedules). */
export function createHousekeepingActivities(db: DataSource) {
  return {
    purgeIdempotencyKeys: (input: PurgeIdempotencyKeysInput) => purgeIdempotencyKeys(db, input),
    purgeWebhookHistory: (input: PurgeWebhookHistoryInput) => purgeWebhookHistory(db, input),
    pruneLeadDeletions: (input: PurgeInput) => pruneLeadDeletions(db, input),
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
