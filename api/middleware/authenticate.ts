import type { Request, RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { hasScope } from '../../lib/auth/scopes';
import { AppError } from '../../lib/errors';
import type { RateLimiter } from '../../lib/rate-limit/limiter';
import type { ApiKeyCache } from '../auth/key-cache';
import { resolveApiKey } from '../auth/resolve-api-key';
import { resolveBearer } from '../auth/resolve-bearer';

const INVALID_KEY_MESSAGE = 'Invalid or missing API key';

const BEARER_API_KEY = /^Bearer\s+(svc_\S+)\s*$/;

/** The API key of a request: X-API-Key, or `Authorization: Bearer svc_...` as Stripe's clients send theirs. */
function apiKeyOf(req: Request): string | undefined {
  return req.get('x-api-key') ?? BEARER_API_KEY.exec(req.get('authorization') ?? '')?.[1];
}

/**
 * An API key (integrations) or Bearer JWT + X-Tenant-Id (platform UI). Missing, malformed, unknown,
 * revoked and expired credentials all get the same 401. Every failure counts against the caller's
 * IP, and an IP that keeps failing gets 429 (key guessing).
 */
export function authenticate(db: DataSource, limiter: RateLimiter, keyCache: ApiKeyCache): RequestHandler {
  return async (req, _res, next) => {
    const apiKey = apiKeyOf(req);
    const resolved = apiKey !== undefined ? await resolveApiKey(db, keyCache, apiKey) : await resolveBearer(db, req);
    if (!resolved) {
      const { blocked, retryAfterSeconds } = await limiter.authFailure(req.ip ?? 'unknown');
      if (blocked) {
        return next(
          new AppError('rate_limited', 'Too many failed authentication attempts; retry later', undefined, {
            'Retry-After': String(retryAfterSeconds),
          }),
        );
      }
      return next(new AppError('unauthorized', INVALID_KEY_MESSAGE));
    }
    req.ctx.auth = {
      tenantId: resolved.tenantId,
      environment: resolved.environment,
      method: 'keyId' in resolved ? 'api_key' : 'jwt',
      apiKeyId: 'keyId' in resolved ? (resolved.keyId as string) : null,
      ownerUserId: resolved.ownerUserId,
      actorUserId: resolved.ownerUserId,
      scopes: resolved.scopes,
      limits: resolved.limits,
    };
    next();
  };
}

/**
 * The spec's 403 message, with the scope the endpoint needs and the ones the caller holds beside
 * it (as Stripe names the missing permission): a key's owner can see at once what to grant.
 */
export function requireScope(scope: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const held = req.ctx.auth?.scopes ?? [];
    if (hasScope(held, scope)) return next();
    const [resource, action] = String(scope).split(':');
    const alternatives = action === 'read' ? ` (${resource}:write or *:read grant it too)` : '';
    const holds = held.length ? held.join(', ') : 'no scopes';
    next(
      new AppError('forbidden', 'Insufficient permissions', [
        { field: 'scope', message: `This endpoint needs the ${scope} scope${alternatives}; the caller holds ${holds}` },
      ]),
    );
  };
}
