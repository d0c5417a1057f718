import type { Request, RequestHandler } from 'express';
import { TWILIO_STATUS_PATH, type TwilioCallbackSettings } from '../../domain/communications/twilio-status';
import { AppError } from '../../lib/errors';
import type { PublicRouteClass, RateLimiter } from '../../lib/rate-limit/limiter';
import { signedByTwilio } from '../http/twilio-signature';
import { FILE_URL_PREFIX } from '../routes/file-urls';

/** Where providers' callbacks are mounted; providerCallbackRateLimit runs under it only, not on every request. */
export const PROVIDER_CALLBACKS_PATH = '/v1/providers';

/**
 * Which per-IP class an unauthenticated request falls in; null for every other request. Providers'
 * callbacks are limited after their body is read instead (providerCallbackRateLimit).
 */
function publicRouteClass(method: string, path: string): PublicRouteClass | null {
  if (path.startsWith('/v1/t/')) return 'tracking';
  if (path.startsWith('/v1/public/forms/')) return 'forms';
  if (path.startsWith('/p/')) return 'pages';
  if (path.startsWith(FILE_URL_PREFIX)) return 'fileUrls';
  if (path === '/v1/auth/login' && method === 'POST') return 'login';
  return null;
}

/** Counts one request of `routeClass` from the caller's address; over the limit, the 429 in the envelope with Retry-After. */
async function limitFromAddress(limiter: RateLimiter, routeClass: PublicRouteClass, req: Request): Promise<AppError | undefined> {
  const decision = await limiter.checkPublic(routeClass, req.ip ?? 'unknown');
  if (decision.allowed) return undefined;
  return new AppError('rate_limited', `Too many requests from this address; retry in ${decision.retryAfterSeconds} seconds`, undefined, {
    'Retry-After': String(decision.retryAfterSeconds),
    'X-RateLimit-Limit': String(decision.limit),
  });
}

/**
 * Per-IP limits on every route that answers without authentication (tracking pixel, click and
 * unsubscribe, public forms, hosted pages, login, signed file URLs), checked before the route does
 * any work. Over the limit: 429 in the error envelope with Retry-After, also on the pixel and page
 * routes (a mail client or browser just shows nothing).
 */
export function publicRateLimit(limiter: RateLimiter): RequestHandler {
  return async (req, _res, next) => {
    const routeClass = publicRouteClass(req.method, req.path);
    next(routeClass ? await limitFromAddress(limiter, routeClass, req) : undefined);
  };
}

/**
 * The per-IP limit of providers' callbacks (PUBLIC_PROVIDER_CALLBACKS_LIMIT_PER_MINUTE), mounted at
 * PROVIDER_CALLBACKS_PATH and run once the form body is read: a callback its provider signed is never counted nor refused, since Twilio does
 * not retry a status callback refused with 429 and the status would be lost (Twilio posts up to three
 * per SMS, from a pool of addresses shared by every account, so a large send crosses any per-IP
 * limit). Everything else under /v1/providers/ (unsigned, forged, another account's signature, a
 * provider not configured) counts, and is answered 429 past the limit before the route runs.
 */
export function providerCallbackRateLimit(limiter: RateLimiter, twilio: TwilioCallbackSettings | undefined): RequestHandler {
  return async (req, _res, next) => {
    if (twilio && req.baseUrl + req.path === TWILIO_STATUS_PATH && signedByTwilio(twilio, req)) return next();
    next(await limitFromAddress(limiter, 'providerCallbacks', req));
  };
}
