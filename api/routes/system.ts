import type { RequestHandler } from 'express';
import { RouteTable } from '../http/route-table';
import { metricsRegistry } from '../../lib/metrics';
import { AppError } from '../../lib/errors';
import type { AppDeps } from '../http/domain-context';
import { successBody } from '../../lib/http-envelope';
import { unscoped } from '../../db/unscoped';

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

async function probe(check: () => Promise<unknown>): Promise<'ok' | 'unavailable'> {
  try {
    await withTimeout(check(), 2000);
    return 'ok';
  } catch {
    return 'unavailable';
  }
}

/** Liveness, readiness (database and Temporal reachable) and Prometheus metrics. */
export function systemRoutes(deps: AppDeps): RequestHandler {
  const routes = new RouteTable();
  routes.add('get', '/healthz', (_req, res) => {
    res.json(successBody(200, 'OK', { status: 'ok' }));
  });
  routes.add('get', '/readyz', async (_req, res) => {
    const [database, temporal] = await Promise.all([
      probe(() => unscoped(deps.db).rows('SELECT 1')),
      probe(() => deps.workflows.client.connection.workflowService.getSystemInfo({})),
    ]);
    const data = { database, temporal };
    if (database !== 'ok' || temporal !== 'ok') {
      throw new AppError('service_unavailable', 'Not ready: a dependency is unavailable', undefined, undefined, data);
    }
    res.json(successBody(200, 'Ready', data));
  });
  routes.add('get', '/metrics', async (_req, res) => {
    res.setHeader('Content-Type', metricsRegistry.contentType);
    res.send(await metricsRegistry.metrics());
  });
  return routes.dispatch;
}
