import type { DataSource } from 'typeorm';
import { purgeIdempotencyKeys, type PurgeIdempotencyKeysInput } from '../../domain/idempotency-purge';

/** Periodic clean-up that belongs to no record type (the idempotency-key purge schedule). */
export function createHousekeepingActivities(db: DataSource) {
  return {
    purgeIdempotencyKeys: (input: PurgeIdempotencyKeysInput) => purgeIdempotencyKeys(db, input),
  };
}

export type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;
