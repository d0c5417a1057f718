import type { DataSource } from 'typeorm';
import { unscoped } from '../../db/unscoped';

export interface PurgeWebhookHistoryInput {
  /** Events created longer ago than this go, with their deliveries and attempts. */
  olderThanMs: number;
  /** Events per DELETE: short statements, so the purge never holds many locks or a long transaction. */
  batchSize?: number;
  /** Batches per run: a large backlog is worked off over several runs instead of one endless one. */
  maxBatches?: number;
}

/**
 * Deletes webhook events older than the retention, with their delivery records and attempt logs,
 * in bounded batches (run by the webhook-history-purge schedule). An event still undispatched, or
 * with a delivery still pending, stays: the purge never races a delivery that may still run.
 * Rows another transaction holds are skipped, not waited for.
 */
export async function purgeWebhookHistory(db: DataSource, input: PurgeWebhookHistoryInput): Promise<{ deleted: number }> {
  const cutoff = new Date(Date.now() - input.olderThanMs);
  const batchSize = input.batchSize ?? 500;
  const maxBatches = input.maxBatches ?? 100;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    // A DELETE answers [rows, affected count] through TypeORM's query.
    const [, count] = (await unscoped(db).rows(
      `WITH old AS (
          SELECT e.id FROM events e
           WHERE e.created_at < $1 AND e.dispatched_at IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
           ORDER BY e.created_at LIMIT $2 FOR UPDATE SKIP LOCKED),
        deliveries AS (DELETE FROM webhook_deliveries d USING old WHERE d.event_id = old.id RETURNING d.id),
        attempts AS (DELETE FROM webhook_delivery_attempts a USING deliveries d WHERE a.delivery_id = d.id)
      DELETE FROM events e USING old WHERE e.id = old.id`,
      [cutoff, batchSize],
    )) as unknown as [unknown, number];
    deleted += count;
    if (count < batchSize) break;
  }
  return { deleted };
}
