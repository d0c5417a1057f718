import type { DataSource } from 'typeorm';
import { unscoped } from '../db/unscoped';

/** How long an Idempotency-Key is honoured (docs/decisions.md, "Access"); older records are purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface PurgeIdempotencyKeysInput {
  /** Default IDEMPOTENCY_TTL_MS. */
  olderThanMs?: number;
  /** Rows per DELETE: short statements, so the purge never holds many locks or a long transaction. */
  batchSize?: number;
  /** Batches per run: a huge backlog is worked off over several runs instead of one endless one. */
  maxBatches?: number;
}

/**
 * Deletes idempotency records older than the TTL, in bounded batches (run by the idempotency-purge
 * schedule). Rows another transaction holds (a key being taken over) are skipped, not waited for.
 */
export async function purgeIdempotencyKeys(db: DataSource, input: PurgeIdempotencyKeysInput = {}): Promise<{ deleted: number }> {
  const cutoff = new Date(Date.now() - (input.olderThanMs ?? IDEMPOTENCY_TTL_MS));
  const batchSize = input.batchSize ?? 1000;
  const maxBatches = input.maxBatches ?? 100;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    // A DELETE answers [rows, affected count] through TypeORM's query.
    const [, count] = (await unscoped(db).rows(
      `DELETE FROM idempotency_keys i
        USING (SELECT tenant_id, environment, principal, key FROM idempotency_keys
                WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED) old
        WHERE (i.tenant_id, i.environment, i.principal, i.key) = (old.tenant_id, old.environment, old.principal, old.key)`,
      [cutoff, batchSize],
    )) as unknown as [unknown, number];
    deleted += count;
    if (count < batchSize) break;
  }
  return { deleted };
}
