import type { DataSource } from 'typeorm';
import { unscoped } from '../../db/unscoped';
import { affectedCount, purgeInBatches, type PurgeInput } from '../purge-batches';

/** Events created longer ago than `olderThanMs` go, with their deliveries and attempts. */
export type PurgeWebhookHistoryInput = PurgeInput;

/**
 * Deletes webhook events older than the retention, with their delivery records and attempt logs,
 * in bounded batches (run by the webhook-history-purge schedule). An event still undispatched, or
 * with a delivery still pending, stays: the purge never races a delivery that may still run.
 * Rows another transaction holds are skipped, not waited for.
 */
export function purgeWebhookHistory(db: DataSource, input: PurgeWebhookHistoryInput): Promise<{ deleted: number }> {
  return purgeInBatches(input, { batchSize: 500, maxBatches: 100 }, async (cutoff, batchSize) =>
    affectedCount(
      await unscoped(db).rows(
        `WITH old AS (
            SELECT e.id FROM events e
             WHERE e.created_at < $1 AND e.dispatched_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
             ORDER BY e.created_at LIMIT $2 FOR UPDATE SKIP LOCKED),
          deliveries AS (DELETE FROM webhook_deliveries d USING old WHERE d.event_id = old.id RETURNING d.id),
          attempts AS (DELETE FROM webhook_delivery_attempts a USING deliveries d WHERE a.delivery_id = d.id)
        DELETE FROM events e USING old WHERE e.id = old.id`,
        [cutoff, batchSize],
      ),
    ),
  );
}
