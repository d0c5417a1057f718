import type { RequestHandler } from 'express';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import { routeTemplate } from '../http/route-template';

/** One line per request; the route template stands for the path, which may carry a token. */
export const accessLog: RequestHandler = (req, res, next) => {
  if (!logger.isLevelEnabled('info')) return next();
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      {
        requestId: req.ctx?.requestId,
        tenantId: req.ctx?.auth ? encodeId('tenant', req.ctx.auth.tenantId) : undefined,
        method: req.method,
        route: routeTemplate(req),
        status: res.statusCode,
        ms: Math.round(ms * 10) / 10,
      },
      'request',
    );
  });
  next();
};
