import type { RequestHandler } from 'express';
import { httpRequestDuration } from '../../lib/metrics';

/** Labels by route template (not raw path) so IDs don't explode the metric's cardinality. */
export const recordMetrics: RequestHandler = (req, res, next) => {
  const end = httpRequestDuration.startTimer();
  res.on('finish', () => {
    const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    end({ method: req.method, route, status: String(res.statusCode) });
  });
  next();
};
