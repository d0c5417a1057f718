import type { RequestHandler } from 'express';
import { encodeId } from '../../lib/ids';
import { accessLogger } from '../../lib/logger';
import { httpRequestDuration } from '../../lib/metrics';
import { routeTemplate } from '../http/route-template';

/**
 * When a response has been sent: its latency in the metrics (labelled by route template, not raw
 * path, so IDs don't explode the cardinality) and, at `info`, one access-log line (the template
 * stands for the path, which may carry a token). One clock read and one listener per request.
 */
export const observeRequest: RequestHandler = (req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = routeTemplate(req);
    httpRequestDuration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
    if (!accessLogger.isLevelEnabled('info')) return;
    accessLogger.info(
      {
        requestId: req.ctx?.requestId,
        tenantId: req.ctx?.auth ? encodeId('tenant', req.ctx.auth.tenantId) : undefined,
        method: req.method,
        route,
        status: res.statusCode,
        ms: Math.round(seconds * 10_000) / 10,
      },
      'request',
    );
  });
  next();
};
