import { In, type FindOptionsWhere } from 'typeorm';
import type { TenantRow } from '../../db/scoped-repository';
import { ChangeFeedHorizon } from '../../db/entities';
import { AppError } from '../../lib/errors';
import type { ChangePosition } from '../../lib/change-cursor';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import type { DomainContext } from '../context';
import type { ChangeFeed } from './feeds';

/** A change a feed reports: a record as it is now, or a deleted record's ID and when it went. */
export type ChangeRow<T> = { type: 'changed'; record: T } | { type: 'deleted'; id: string; deletedAt: Date };

export interface ChangesPage<T> {
  changes: ChangeRow<T>[];
  /** Where the next read starts: after the last change read, or where this one started. */
  next: ChangePosition;
  hasMore: boolean;
}

/** A change, or (kind null) only the flag: a read with no change still answers one row. */
interface FeedRow {
  expired: boolean;
  kind: 'changed' | 'deleted' | null;
  xid: string;
  id: string;
  deleted_at: Date | null;
}

/**
 * The statement of readChanges: `limit` + 1 changes after `after`, to tell whether more follow,
 * each with `expired`: whether deletions after `after` were pruned (a read from the start needs
 * none: it lists every record there is). One statement, one snapshot: a prune that commits beside
 * it is seen whole (its deletions gone and its horizon moved) or not at all.
 */
export function changesSql<T extends TenantRow>(q: ScopedSqlBuilder, feed: ChangeFeed<T>, after: ChangePosition, limit: number): string {
  const xid = q.value(after.xid);
  const id = q.value(after.id);
  const take = q.value(limit + 1);
  const horizon = '(SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint)';
  const deletedId = `d.${feed.deletedIdColumn}`;
  const expired = `${xid}::bigint > 0 AND EXISTS (SELECT 1 FROM ${q.table(ChangeFeedHorizon)} h
      WHERE ${q.scope('h')} AND h.feed = ${q.value(feed.name)}
        AND (h.pruned_through_xid, h.pruned_through_id) > (${xid}::bigint, ${id}::bigint))`;
  // Each side is read in the feed's order by its own index, at most a page; the union merges them.
  return `SELECT pruned.expired, feed.kind, feed.xid::text AS xid, feed.id::text AS id, feed.deleted_at
    FROM (SELECT ${expired} AS expired) pruned LEFT JOIN (
      (SELECT 'changed' AS kind, r.change_xid AS xid, r.id, NULL::timestamptz AS deleted_at
         FROM ${q.table(feed.entity)} r
        WHERE ${q.scope('r')} AND r.change_xid >= ${xid}::bigint AND (r.change_xid, r.id) > (${xid}::bigint, ${id}::bigint)
          AND r.change_xid < ${horizon}
        ORDER BY r.change_xid, r.id LIMIT ${take})
      UNION ALL
      (SELECT 'deleted', d.change_xid, ${deletedId}, d.deleted_at
         FROM ${q.table(feed.deletions)} d
        WHERE ${q.scope('d')} AND d.change_xid >= ${xid}::bigint AND (d.change_xid, ${deletedId}) > (${xid}::bigint, ${id}::bigint)
          AND d.change_xid < ${horizon}
        ORDER BY d.change_xid, ${deletedId} LIMIT ${take})
      ORDER BY xid, id LIMIT ${take}
    ) feed ON true ORDER BY feed.xid, feed.id`;
}

/**
 * The scope's records and deleted records after `after`, in the order of their last change's
 * transaction ID and then their ID (migration AddLeadChangeFeed1796130000000). Only IDs below the
 * statement's snapshot's xmin are read: every transaction below it has ended, so no change can
 * commit later with a place before one read here, which `updatedFrom` (a transaction's start
 * time) cannot promise. A transaction still running holds back the changes after its own until it
 * ends; the feed is then behind by that transaction, never wrong.
 *
 * The records are read by a second statement, so each is as it is now: one changed again in
 * between is its newer self (and comes again, at its new place), one deleted in between is left
 * out (its deletion comes at its place).
 */
export async function readChanges<T extends TenantRow>(
  ctx: DomainContext,
  feed: ChangeFeed<T>,
  after: ChangePosition,
  limit: number,
): Promise<ChangesPage<T>> {
  const result = await ctx.data.sql<FeedRow>((q) => changesSql(q, feed, after, limit));
  if (result[0].expired) throw cursorExpired(feed);
  const rows = result.filter((r) => r.kind !== null);
  const page = rows.slice(0, limit);
  const changedIds = page.filter((r) => r.kind === 'changed').map((r) => r.id);
  const records = changedIds.length ? await ctx.data.repo(feed.entity).find({ where: { id: In(changedIds) } as FindOptionsWhere<T> }) : [];
  const byId = new Map(records.map((r) => [r.id, r]));
  const changes = page.flatMap((r): ChangeRow<T>[] => {
    if (r.kind === 'deleted') return [{ type: 'deleted', id: r.id, deletedAt: r.deleted_at as Date }];
    const record = byId.get(r.id);
    return record ? [{ type: 'changed', record }] : [];
  });
  const last = page.at(-1);
  return { changes, next: last ? { xid: last.xid, id: last.id } : after, hasMore: rows.length > limit };
}

/**
 * Deleted records are kept CHANGE_FEED_RETENTION_DAYS (./prune.ts): a cursor from before the
 * last one pruned may have missed it. 410, as Google's sync tokens answer.
 */
const cursorExpired = (feed: ChangeFeed<TenantRow>) =>
  new AppError(
    'gone',
    `This cursor is older than the deleted ${feed.name} the feed keeps, so some deletions after it can no longer be listed. Sync again from the start: leave cursor out, and treat the ${feed.name} you hold that the new sync does not list as deleted.`,
    [{ field: 'cursor', message: 'Expired: read again without a cursor' }],
  );
