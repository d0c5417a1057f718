import type { DataSource } from 'typeorm';
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

/** Written before the response is sent, so a client never sees a success that left no trace. */
export async function recordAudit(db: DataSource, e: AuditEntry): Promise<void> {
  await db.getRepository(AuditLog).insert({
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
}

/** `/v1/integrations/webhooks/:id/test` -> `integrations/webhooks`: the path up to its first parameter. */
export function resourceTypeOf(path: string): string {
  const segments = path.replace(/^\/v1\//, '').split('/');
  const end = segments.findIndex((s) => s.startsWith(':'));
  return segments.slice(0, end === -1 ? undefined : end).join('/');
}
