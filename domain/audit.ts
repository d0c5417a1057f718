import type { DataSource } from 'typeorm';
import { unscoped } from '../db/unscoped';
import { GroupCommit } from '../lib/group-commit';
import { logger } from '../lib/logger';
import { auditEntriesLost } from '../lib/metrics';
import { AuditLog } from '../db/entities';
import type { TenantScope } from '../db/scoped-repository';
import { ScopedData } from '../db/scoped-data';
import type { DomainContext } from './context';

/** Who made the request: the API's AuthContext satisfies it. */
interface AuditCaller extends TenantScope {
  apiKeyId: string | null;
  ownerUserId: string;
  actorUserId: string;
}

export interface AuditEntry {
  auth: AuditCaller;
  action: string;
  resourceType: string;
  resourceId: string | null;
  statusCode: number;
  requestId: string;
  ip: string | null;
}

export const auditRow = (e: AuditEntry): Partial<AuditLog> => ({
  tenantId: e.auth.tenantId,
  environment: e.auth.environment,
  apiKeyId: e.auth.apiKeyId,
  ownerUserId: e.auth.ownerUserId,
  actorUserId: e.auth.actorUserId,
  action: e.action,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
  statusCode: e.statusCode,
  requestId: e.requestId,
  ip: e.ip,
});

/**
 * The entries no unit of work wrote with its change (pending-audit.ts): mutations that commit
 * through a single repository call. They are written after the change, before the response;
 * concurrent requests share one INSERT (group commit), so they pay no round trip of their own.
 *
 * Such an entry records a change that has already committed. A failed write must therefore never
 * turn into an error response: the client would retry and repeat the change. So `record` never
 * rejects. A failed batch is retried entry by entry (one bad entry cannot fail its neighbours'
 * requests), and an entry that still cannot be stored goes to the error log in full (IDs only, no
 * payloads) and to the `audit_entries_lost_total` metric, for an operator to alert on and restore.
 * See docs/decisions.md, "Audit log".
 */
export class AuditLogWriter {
  private readonly writes: GroupCommit<AuditEntry>;

  constructor(private readonly db: DataSource) {
    // One statement for the entries of every tenant that arrived together: hence the unscoped door.
    const insert = (rows: Partial<AuditLog>[]) => unscoped(db).insertMany(AuditLog, rows);
    this.writes = new GroupCommit(async (entries) => {
      const rows = entries.map(auditRow);
      try {
        return await insert(rows);
      } catch (err) {
        if (rows.length === 1) return lost(rows[0], err);
      }
      await Promise.all(rows.map((row) => insert([row]).catch((err) => lost(row, err))));
    });
  }

  record(entry: AuditEntry): Promise<void> {
    return this.writes.add(entry);
  }

  /**
   * An entry written with its change before the response was known: the created resource's ID
   * and the status the handler chose. Logged, never raised, like `record`: the change committed.
   */
  async correct(scope: TenantScope, id: string, fix: { resourceId: string | null; statusCode: number }): Promise<void> {
    try {
      await new ScopedData(this.db.manager, scope).sql(
        (q) => `UPDATE ${q.table(AuditLog)} SET resource_id = ${q.value(fix.resourceId)}, status_code = ${q.value(fix.statusCode)}
          WHERE ${q.scope()} AND id = ${q.value(id)}`,
      );
    } catch (err) {
      logger.error({ err, auditEntryId: id, ...fix }, 'audit entry not corrected; it was stored with the change');
    }
  }
}

function lost(row: Partial<AuditLog>, err: unknown): void {
  auditEntriesLost.inc();
  logger.error({ err, auditEntry: row }, 'audit entry not stored; the change it records is committed, so the client got its success');
}

/** `/v1/integrations/webhooks/:id/test` -> `integrations/webhooks`: the path up to its first parameter. */
export function resourceTypeOf(path: string): string {
  const segments = path.replace(/^\/v1\//, '').split('/');
  const end = segments.findIndex((s) => s.startsWith(':'));
  return segments.slice(0, end === -1 ? undefined : end).join('/');
}

export interface AuditLogFilters {
  page: number;
  limit: number;
  resourceType?: string;
  resourceId?: string;
  actorId?: string;
  apiKeyId?: string;
  action?: string;
  createdFrom?: string;
  createdTo?: string;
}

/** One page of the scope's audit log, newest first. */
export async function listAuditLog(ctx: DomainContext, q: AuditLogFilters) {
  const qb = ctx.data.repo(AuditLog).select('a');
  if (q.resourceType) qb.andWhere('a.resource_type = :rt', { rt: q.resourceType });
  if (q.resourceId) qb.andWhere('a.resource_id = :rid', { rid: q.resourceId });
  if (q.actorId) qb.andWhere('a.actor_user_id = :actor', { actor: q.actorId });
  if (q.apiKeyId) qb.andWhere('a.api_key_id = :key', { key: q.apiKeyId });
  if (q.action) qb.andWhere('a.action = :action', { action: q.action });
  if (q.createdFrom) qb.andWhere('a.created_at >= :from', { from: q.createdFrom });
  if (q.createdTo) qb.andWhere('a.created_at <= :to', { to: q.createdTo });
  const [rows, total] = await qb.orderBy('a.created_at', 'DESC').addOrderBy('a.id', 'DESC').page(q.page, q.limit);
  return { rows, total };
}
