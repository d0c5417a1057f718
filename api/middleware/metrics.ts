import type { RequestHandler } from 'express';
import { httpRequestDuration } from '../../lib/metrics';
import { routeTemplate } from '../http/route-template';

/** Labels by route template (not raw path) so IDs don't explode the metric's cardinality. */
export const recordMetrics: RequestHandler = (req, res, next) => {
  const end = httpRequestDuration.startTimer();
  res.on('finish', () => {
    end({ method: req.method, route: routeTemplate(req), status: String(res.statusCode) });
  });
  next();
};
