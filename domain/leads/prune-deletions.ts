import type { DataSource } from 'typeorm';
import { unscoped } from '../../db/unscoped';
import { purgeInBatches, type PurgeInput } from '../purge-batches';

/**
 * Deletes deleted leads' rows older than the retention (LEAD_DELETION_RETENTION_DAYS), in bounded
 * batches (run by the lead-deletion-purge schedule), and moves each scope's horizon to the feed's
 * place of the last one it pruned, in the same statement: a change-feed read sees both or neither,
 * so a cursor before a pruned deletion is always refused, never answered without it
 * (domain/leads/changes.ts). Rows another transaction holds are skipped, not waited for.
 */
export function pruneLeadDeletions(db: DataSource, input: PurgeInput): Promise<{ deleted: number }> {
  return purgeInBatches(input, { batchSize: 1000, maxBatches: 100 }, async (cutoff, batchSize) => {
    const [{ deleted }] = await unscoped(db).rows<{ deleted: number }>(
      `WITH old AS (
          SELECT lead_id FROM lead_deletions WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED),
        gone AS (
          DELETE FROM lead_deletions d USING old WHERE d.lead_id = old.lead_id
          RETURNING d.tenant_id, d.environment, d.change_xid, d.lead_id),
        horizon AS (
          INSERT INTO lead_deletion_horizons AS h (tenant_id, environment, pruned_through_xid, pruned_through_id)
          SELECT DISTINCT ON (tenant_id, environment) tenant_id, environment, change_xid, lead_id
            FROM gone ORDER BY tenant_id, environment, change_xid DESC, lead_id DESC
          ON CONFLICT (tenant_id, environment) DO UPDATE
            SET pruned_through_xid = excluded.pruned_through_xid, pruned_through_id = excluded.pruned_through_id
            WHERE (excluded.pruned_through_xid, excluded.pruned_through_id) > (h.pruned_through_xid, h.pruned_through_id))
      SELECT count(*)::int AS deleted FROM gone`,
      [cutoff, batchSize],
    );
    return deleted;
  });
}
