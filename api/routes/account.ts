import { z } from 'zod';
import { AuditLog, Tenant } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { encodeId } from '../../lib/ids';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { AuditLogEntry, AuditLogQuery } from '../schemas/audit-log';
import { Usage } from '../schemas/usage';
import { unscoped } from '../../db/unscoped';

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
      handler: async ({ auth }) => {
        const tenant = await unscoped(deps.db).repo(Tenant).findOneByOrFail({ id: auth.tenantId });
        const month = await deps.limiter.monthlyUsage(auth.tenantId);
        const { monthlyCalls, perMinute, burst } = auth.limits;
        return {
          data: {
            plan: tenant.plan,
            period: { start: month.start.toISOString(), end: month.end.toISOString() },
            calls: { current: month.current, limit: monthlyCalls, remaining: Math.max(0, monthlyCalls - month.current) },
            rateLimit: { perMinute, burstPerSecond: burst },
          },
          message: 'Usage retrieved',
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/audit-logs',
      summary: 'The audit log of mutating requests (newest first)',
      tag: 'Account',
      auth: 'tenant',
      scope: 'audit_logs:read',
      query: AuditLogQuery,
      response: z.array(AuditLogEntry),
      list: true,
      handler: async ({ query: q, auth }) => {
        const qb = scoped(deps.db.manager, AuditLog, domainContext(deps, auth).scope).select('a');
        if (q.resourceType) qb.andWhere('a.resource_type = :rt', { rt: q.resourceType });
        if (q.resourceId) qb.andWhere('a.resource_id = :rid', { rid: q.resourceId });
        if (q.actorId) qb.andWhere('a.actor_user_id = :actor', { actor: q.actorId });
        if (q.apiKeyId) qb.andWhere('a.api_key_id = :key', { key: q.apiKeyId });
        if (q.action) qb.andWhere('a.action = :action', { action: q.action });
        if (q.createdFrom) qb.andWhere('a.created_at >= :from', { from: q.createdFrom });
        if (q.createdTo) qb.andWhere('a.created_at <= :to', { to: q.createdTo });
        const [rows, total] = await qb.orderBy('a.created_at', 'DESC').addOrderBy('a.id', 'DESC').page(q.page, q.limit);
        return { data: rows.map(serializeAudit), pagination: paginate(q.page, q.limit, total), message: 'Audit log retrieved' };
      },
    }),
  ];
}
