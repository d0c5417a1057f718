import type { DataSource } from 'typeorm';
import { unscoped } from '../db/unscoped';
import { affectedCount, purgeInBatches, type PurgeInput } from './purge-batches';

/** How long an Idempotency-Key is honoured (docs/decisions.md, "Access"); older records are purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The purge's input; the age defaults to IDEMPOTENCY_TTL_MS. */
export type PurgeIdempotencyKeysInput = Omit<PurgeInput, 'olderThanMs'> & { olderThanMs?: number };

/**
 * Deletes idempotency records older than the TTL, in bounded batches (run by the idempotency-purge
 * schedule). Rows another transaction holds (a key being taken over) are skipped, not waited for.
 */
export function purgeIdempotencyKeys(db: DataSource, input: PurgeIdempotencyKeysInput = {}): Promise<{ deleted: number }> {
  return purgeInBatches(
    { ...input, olderThanMs: input.olderThanMs ?? IDEMPOTENCY_TTL_MS },
    { batchSize: 1000, maxBatches: 100 },
    async (cutoff, batchSize) =>
      affectedCount(
        await unscoped(db).rows(
          `DELETE FROM idempotency_keys i
          USING (SELECT tenant_id, environment, principal, key FROM idempotency_keys
                  WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED) old
          WHERE (i.tenant_id, i.environment, i.principal, i.key) = (old.tenant_id, old.environment, old.principal, old.key)`,
          [cutoff, batchSize],
        ),
      ),
  );
}
