import type { Request, RequestHandler } from 'express';
import { compose } from './compose';
import { RouteTable } from './route-table';
import { AuditLogWriter, resourceTypeOf } from '../../domain/audit';
import { authenticate, requireScope } from '../middleware/authenticate';
import { idempotency } from '../middleware/idempotency';
import { onBehalfOf } from '../middleware/on-behalf-of';
import { rateLimit } from '../middleware/rate-limit';
import { tenantFairShare } from '../middleware/tenant-fair-share';
import type { AuthContext } from './context';
import { domainContext, type AppDeps } from './domain-context';
import { defaultStatus, toHandler, type AnyRoute, type HandlerHooks } from './route';
import { PendingAudit } from '../../domain/pending-audit';

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Mounts route specs with the middleware their auth mode needs, in one fixed order:
 * authenticate -> the tenant's fair share of in-flight requests -> rate limit (counts even calls refused later) -> X-On-Behalf-Of -> scope ->
 * idempotency -> handler (which records the audit entry of a successful mutation).
 */
export function mountRoutes(routes: AnyRoute[], deps: AppDeps): RequestHandler {
  const tenantChain: RequestHandler[] = [
    authenticate(deps.db, deps.limiter, deps.keyCache),
    tenantFairShare({ maxInFlight: deps.tenantMaxInFlight, sharedMaxInFlight: deps.tenantSharedMaxInFlight }),
    rateLimit(deps.limiter),
    onBehalfOf(deps.db),
  ];
  const idempotent = idempotency(deps.db);
  const audit = auditHooks(new AuditLogWriter(deps.db));
  const contextFor = (auth: AuthContext, req: Request) =>
    domainContext(deps, auth, req.ctx, audit.pendingFor(req), req.method === 'GET' || req.method === 'HEAD');
  const groups = new Map<string, RouteTable>();
  for (const route of routes) {
    const chain = route.auth === 'tenant' ? [...tenantChain, requireScope(route.scope), idempotent] : [];
    const prefix = route.path.split('/').slice(0, 3).join('/');
    let group = groups.get(prefix);
    if (!group) groups.set(prefix, (group = new RouteTable()));
    const handler = toHandler(route, route.auth === 'tenant' ? contextFor : undefined, audit);
    group.add(route.method, route.path, chain.length ? compose([...chain, handler]) : handler);
  }
  // One map lookup per request instead of one middleware layer per group (about 30) to step through.
  return (req, res, next) => {
    const group = groups.get(groupPrefix(req.path)) ?? groups.get(firstSegment(req.path));
    return group ? group.dispatch(req, res, next) : next();
  };
}

/** `/v1/leads/abc` -> `/v1/leads`: the first two segments, as routes are grouped (a string test, like underPrefix). */
function groupPrefix(path: string): string {
  const second = path.indexOf('/', 1);
  if (second === -1) return path;
  const third = path.indexOf('/', second + 1);
  return third === -1 ? path : path.slice(0, third);
}

/** `/healthz/x` -> `/healthz`, for a route whose path has a single segment. */
function firstSegment(path: string): string {
  const second = path.indexOf('/', 1);
  return second === -1 ? path : path.slice(0, second);
}

/**
 * Runs `group` only for paths under one of `prefixes` (a string test, not a pattern match). API
 * routes are grouped by their first two segments (`/v1/leads`), so a request is matched against
 * its group's few routes instead of every route's pattern in turn; the app's other routers (health,
 * docs, dashboard, signed file URLs, landing pages) are stepped over by every API request the same
 * way. Routes keep their full paths, so req.path and req.route are what they would be without the
 * grouping.
 */
export function underPrefix(prefixes: string | string[], group: RequestHandler): RequestHandler {
  const list = typeof prefixes === 'string' ? [prefixes] : prefixes;
  return (req, res, next) => {
    const path = req.path;
    const inside = list.some((prefix) => path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === '/'));
    return inside ? group(req, res, next) : next();
  };
}

/**
 * The audit entry of every successful mutation: pending while the handler runs, carried by the
 * request's domain context (pendingFor), so the unit of work that commits the change writes it in
 * the same transaction (domain/pending-audit.ts); corrected after when the response names another
 * resource or status than was known then; written after the change, by the group-commit writer,
 * when no unit of work took it.
 */
function auditHooks(writer: AuditLogWriter): HandlerHooks & { pendingFor(req: Request): PendingAudit | undefined } {
  const pending = new WeakMap<Request, PendingAudit>();
  return {
    run(req, route, handler) {
      if (!MUTATING.has(route.method) || !req.ctx.auth) return handler();
      const id = (req.params as Record<string, string>).id;
      const entry = new PendingAudit({
        auth: req.ctx.auth,
        action: `${route.method.toUpperCase()} ${route.path}`,
        resourceType: route.auditResource ?? resourceTypeOf(route.path),
        resourceId: typeof id === 'string' ? id.slice(0, 40) : null,
        statusCode: defaultStatus(route),
        requestId: req.ctx.requestId,
        ip: req.ip ?? null,
      });
      pending.set(req, entry);
      return handler();
    },
    pendingFor: (req) => pending.get(req),
    async succeeded(req, _route, status, data) {
      const entry = pending.get(req);
      if (!entry) return;
      const id = entry.entry.resourceId ?? (data as { id?: unknown } | null)?.id;
      const resourceId = typeof id === 'string' ? id.slice(0, 40) : null;
      const written = await entry.close();
      if (!written) return writer.record({ ...entry.entry, resourceId, statusCode: status });
      if (written.resourceId !== resourceId || written.statusCode !== status)
        await writer.correct(entry.entry.auth, written.id, { resourceId, statusCode: status });
    },
  };
}
