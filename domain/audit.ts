import type { DataSource } from 'typeorm';
import { insertManySql, Params, queryRows } from '../db/sql';
import { GroupCommit } from '../lib/group-commit';
import { AuditLog } from '../db/entities';
import type { AuthContext } from '../api/http/context';

export interface AuditEntry {
  auth: AuthContext;
  action: string;
  resourceType: string;
  resourceId: string | null;
  statusCode: number;
  requestId: string;
  ip: string | null;
}

const toRow = (e: AuditEntry): Partial<AuditLog> => ({
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
 * Audit entries are written before the response is sent, so a client never sees a success that
 * left no trace; concurrent requests share one INSERT (group commit).
 */
export class AuditLogWriter {
  private readonly writes: GroupCommit<AuditEntry>;

  constructor(db: DataSource) {
    const meta = db.getMetadata(AuditLog);
    this.writes = new GroupCommit(async (entries) => {
      const p = new Params();
      await queryRows(db.manager, insertManySql(db.manager, meta, entries.map(toRow), p), p);
    });
  }

  record(entry: AuditEntry): Promise<void> {
    return this.writes.add(entry);
  }
}

/** `/v1/integrations/webhooks/:id/test` -> `integrations/webhooks`: the path up to its first parameter. */
export function resourceTypeOf(path: string): string {
  const segments = path.replace(/^\/v1\//, '').split('/');
  const end = segments.findIndex((s) => s.startsWith(':'));
  return segments.slice(0, end === -1 ? undefined : end).join('/');
}
