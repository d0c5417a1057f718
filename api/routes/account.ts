import { z } from 'zod';
import type { AuditLog } from '../../db/entities';
import { listAuditLog } from '../../domain/audit';
import { tenantPlan } from '../../domain/tenants';
import { encodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { AuditLogEntry, AuditLogQuery } from '../../contracts/audit-log';
import { Usage } from '../../contracts/usage';

function serializeAudit(a: AuditLog): AuditLogEntry {
  return {
    id: encodeId('auditLog', a.id),
    action: a.action,
    resourceType: a.resourceType,
    resourceId: a.resourceId,
    statusCode: a.statusCode,
    apiKeyId: a.apiKeyId ? encodeId('apiKey', a.apiKeyId) : null,
    keyOwnerId: encodeId('user', a.ownerUserId),
    actorId: encodeId('user', a.actorUserId),
    requestId: a.requestId,
    ip: a.ip,
    environment: a.environment,
    createdAt: a.createdAt.toISOString(),
  };
}

export function accountRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/usage',
      summary: "This billing month's API calls against the plan's quota, and the rate limits",
      tag: 'Account',
      auth: 'tenant',
      scope: 'usage:read',
      response: Usage,
      handler: async ({ auth, ctx }) => {
        const plan = await tenantPlan(ctx);
        const month = await deps.limiter.monthlyUsage(auth.tenantId);
        const { monthlyCalls, perMinute, burst } = auth.limits;
        return {
          data: {
            plan,
            period: { start: month.start.toISOString(), end: month.end.toISOString() },
            calls: { current: month.current, limit: monthlyCalls, remaining: Math.max(0, monthlyCalls - month.current) },
            rateLimit: { perMinute, burstPerSecond: burst },
          },
          message: 'Usage retrieved',
        };
      },
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/audit-logs',
      summary: 'The audit log of mutating requests (newest first)',
      tag: 'Account',
      auth: 'tenant',
      scope: 'audit_logs:read',
      query: AuditLogQuery,
      response: z.array(AuditLogEntry),
      message: 'Audit log retrieved',
      serialize: serializeAudit,
      handler: ({ query, ctx }) => listAuditLog(ctx, query),
    }),
  ];
}
