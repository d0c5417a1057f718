import type { RequestHandler } from 'express';
import { AppError } from '../../lib/errors';
import type { RateLimiter } from '../../lib/rate-limit/limiter';

const LIMIT_EXCEEDED_MESSAGE = 'API call limit exceeded; upgrade the plan';

/** Sets the five limit headers on every authenticated response; 429 with Retry-After when over. */
export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const auth = req.ctx.auth!;
    const decision = await limiter.check({
      tenantId: auth.tenantId,
      environment: auth.environment,
      limits: auth.limits,
      ip: req.ip ?? 'unknown',
      billable: auth.method === 'api_key' && auth.environment === 'live',
    });
    for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
    if (!decision.allowed) {
      return next(new AppError('rate_limited', LIMIT_EXCEEDED_MESSAGE, undefined, { 'Retry-After': String(decision.retryAfterSeconds) }));
    }
    next();
  };
}
