import { In } from 'typeorm';
import { Lead, LeadDeletion, LeadDeletionHorizon } from '../../db/entities';
import { AppError } from '../../lib/errors';
import type { ChangePosition } from '../../lib/change-cursor';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import type { DomainContext } from '../context';

/** A change the feed reports: a lead as it is now, or a deleted lead's ID and when it went. */
export type LeadChangeRow = { type: 'changed'; lead: Lead } | { type: 'deleted'; id: string; deletedAt: Date };

export interface LeadChangesPage {
  changes: LeadChangeRow[];
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
 * The statement of readLeadChanges: `limit` + 1 changes after `after`, to tell whether more follow,
 * each with `expired`: whether deletions after `after` were pruned (a read from the start needs
 * none: it lists every lead there is). One statement, one snapshot: a prune that commits beside
 * it is seen whole (its deletions gone and its horizon moved) or not at all.
 */
export function leadChangesSql(q: ScopedSqlBuilder, after: ChangePosition, limit: number): string {
  const xid = q.value(after.xid);
  const id = q.value(after.id);
  const take = q.value(limit + 1);
  const horizon = '(SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint)';
  const expired = `${xid}::bigint > 0 AND EXISTS (SELECT 1 FROM ${q.table(LeadDeletionHorizon)} h
      WHERE ${q.scope('h')} AND (h.pruned_through_xid, h.pruned_through_id) > (${xid}::bigint, ${id}::bigint))`;
  // Each side is read in the feed's order by its own index, at most a page; the union merges them.
  return `SELECT pruned.expired, feed.kind, feed.xid::text AS xid, feed.id::text AS id, feed.deleted_at
    FROM (SELECT ${expired} AS expired) pruned LEFT JOIN (
      (SELECT 'changed' AS kind, l.change_xid AS xid, l.id, NULL::timestamptz AS deleted_at
         FROM ${q.table(Lead)} l
        WHERE ${q.scope('l')} AND l.change_xid >= ${xid}::bigint AND (l.change_xid, l.id) > (${xid}::bigint, ${id}::bigint)
          AND l.change_xid < ${horizon}
        ORDER BY l.change_xid, l.id LIMIT ${take})
      UNION ALL
      (SELECT 'deleted', d.change_xid, d.lead_id, d.deleted_at
         FROM ${q.table(LeadDeletion)} d
        WHERE ${q.scope('d')} AND d.change_xid >= ${xid}::bigint AND (d.change_xid, d.lead_id) > (${xid}::bigint, ${id}::bigint)
          AND d.change_xid < ${horizon}
        ORDER BY d.change_xid, d.lead_id LIMIT ${take})
      ORDER BY xid, id LIMIT ${take}
    ) feed ON true ORDER BY feed.xid, feed.id`;
}

/**
 * The scope's leads and deleted leads after `after`, in the order of their last change's
 * transaction ID and then their ID (migration AddLeadChangeFeed1796130000000). Only IDs below the
 * statement's snapshot's xmin are read: every transaction below it has ended, so no change can
 * commit later with a place before one read here, which `updatedFrom` (a transaction's start
 * time) cannot promise. A transaction still running holds back the changes after its own until it
 * ends; the feed is then behind by that transaction, never wrong.
 *
 * The leads are read by a second statement, so each is as it is now: one changed again in
 * between is its newer self (and comes again, at its new place), one deleted in between is left
 * out (its deletion comes at its place).
 */
export async function readLeadChanges(ctx: DomainContext, after: ChangePosition, limit: number): Promise<LeadChangesPage> {
  const result = await ctx.data.sql<FeedRow>((q) => leadChangesSql(q, after, limit));
  if (result[0].expired) throw cursorExpired();
  const rows = result.filter((r) => r.kind !== null);
  const page = rows.slice(0, limit);
  const changedIds = page.filter((r) => r.kind === 'changed').map((r) => r.id);
  const leads = changedIds.length ? await ctx.data.repo(Lead).find({ where: { id: In(changedIds) } }) : [];
  const byId = new Map(leads.map((l) => [l.id, l]));
  const changes = page.flatMap((r): LeadChangeRow[] => {
    if (r.kind === 'deleted') return [{ type: 'deleted', id: r.id, deletedAt: r.deleted_at as Date }];
    const lead = byId.get(r.id);
    return lead ? [{ type: 'changed', lead }] : [];
  });
  const last = page.at(-1);
  return { changes, next: last ? { xid: last.xid, id: last.id } : after, hasMore: rows.length > limit };
}

/**
 * Deleted leads are kept LEAD_DELETION_RETENTION_DAYS (domain/leads/prune-deletions.ts): a cursor
 * from before the last one pruned may have missed it. 410, as Google's sync tokens answer.
 */
const cursorExpired = () =>
  new AppError(
    'gone',
    'This cursor is older than the deleted leads the feed keeps, so some deletions after it can no longer be listed. Sync again from the start: leave cursor out, and treat the leads you hold that the new sync does not list as deleted.',
    [{ field: 'cursor', message: 'Expired: read again without a cursor' }],
  );
