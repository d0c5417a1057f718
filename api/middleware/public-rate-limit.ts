import type { RequestHandler } from 'express';
import { AppError } from '../../lib/errors';
import type { PublicRouteClass, RateLimiter } from '../../lib/rate-limit/limiter';
import { FILE_URL_PREFIX } from '../routes/file-urls';

/** Which per-IP class an unauthenticated request falls in; null for every other request. */
function publicRouteClass(method: string, path: string): PublicRouteClass | null {
  if (path.startsWith('/v1/t/')) return 'tracking';
  if (path.startsWith('/v1/public/forms/')) return 'forms';
  if (path.startsWith('/p/')) return 'pages';
  if (path.startsWith(FILE_URL_PREFIX)) return 'fileUrls';
  if (path.startsWith('/v1/providers/')) return 'providerCallbacks';
  if (path === '/v1/auth/login' && method === 'POST') return 'login';
  return null;
}

/**
 * Per-IP limits on every route that answers without authentication (tracking pixel, click and
 * unsubscribe, public forms, hosted pages, login, signed file URLs, providers' callbacks), checked before the route does
 * any work. Over the limit: 429 in the error envelope with Retry-After, also on the pixel and page
 * routes (a mail client or browser just shows nothing).
 */
export function publicRateLimit(limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const routeClass = publicRouteClass(req.method, req.path);
    if (!routeClass) return next();
    const decision = await limiter.checkPublic(routeClass, req.ip ?? 'unknown');
    if (decision.allowed) return next();
    res.setHeader('X-RateLimit-Limit', String(decision.limit));
    next(
      new AppError('rate_limited', `Too many requests from this address; retry in ${decision.retryAfterSeconds} seconds`, undefined, {
        'Retry-After': String(decision.retryAfterSeconds),
      }),
    );
  };
}
