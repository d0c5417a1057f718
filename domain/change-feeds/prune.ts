import type { DataSource } from 'typeorm';
import { unscoped } from '../../db/unscoped';
import { purgeInBatches, type PurgeInput } from '../purge-batches';
import { CHANGE_FEEDS, type ChangeFeed } from './feeds';
import type { TenantRow } from '../../db/scoped-repository';

/**
 * Deletes every feed's deleted records older than the retention (CHANGE_FEED_RETENTION_DAYS), in
 * bounded batches (run by the change-feed-purge schedule), and moves each scope's horizon of that
 * feed to the place of the last one it pruned, in the same statement: a change-feed read sees both
 * or neither, so a cursor before a pruned deletion is always refused, never answered without it
 * (./read.ts). Rows another transaction holds are skipped, not waited for.
 */
export async function pruneDeletions(db: DataSource, input: PurgeInput): Promise<{ deleted: number }> {
  let deleted = 0;
  for (const feed of CHANGE_FEEDS) deleted += (await pruneFeed(db, feed, input)).deleted;
  return { deleted };
}

function pruneFeed(db: DataSource, feed: ChangeFeed<TenantRow>, input: PurgeInput): Promise<{ deleted: number }> {
  const table = db.getMetadata(feed.deletions).tableName;
  const id = feed.deletedIdColumn;
  return purgeInBatches(input, { batchSize: 1000, maxBatches: 100 }, async (cutoff, batchSize) => {
    const [{ deleted }] = await unscoped(db).rows<{ deleted: number }>(
      `WITH old AS (
          SELECT ${id} FROM ${table} WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2 FOR UPDATE SKIP LOCKED),
        gone AS (
          DELETE FROM ${table} d USING old WHERE d.${id} = old.${id}
          RETURNING d.tenant_id, d.environment, d.change_xid, d.${id} AS id),
        horizon AS (
          INSERT INTO change_feed_horizons AS h (feed, tenant_id, environment, pruned_through_xid, pruned_through_id)
          SELECT DISTINCT ON (tenant_id, environment) $3, tenant_id, environment, change_xid, id
            FROM gone ORDER BY tenant_id, environment, change_xid DESC, id DESC
          ON CONFLICT (feed, tenant_id, environment) DO UPDATE
            SET pruned_through_xid = excluded.pruned_through_xid, pruned_through_id = excluded.pruned_through_id
            WHERE (excluded.pruned_through_xid, excluded.pruned_through_id) > (h.pruned_through_xid, h.pruned_through_id))
      SELECT count(*)::int AS deleted FROM gone`,
      [cutoff, batchSize, feed.name],
    );
    return deleted;
  });
}
