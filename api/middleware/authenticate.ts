import type { Request, RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { hasScope } from '../../lib/auth/scopes';
import { AppError, type FieldError } from '../../lib/errors';
import { API_KEY_PATTERN } from '../../lib/auth/api-key-secret';
import { ENVIRONMENTS } from '../../db/entities/tenant-owned';
import type { RateLimiter } from '../../lib/rate-limit/limiter';
import type { ApiKeyCache } from '../auth/key-cache';
import { resolveApiKey } from '../auth/resolve-api-key';
import { bearerToken, resolveBearer } from '../auth/resolve-bearer';

const INVALID_KEY_MESSAGE = 'Invalid or missing API key';

/** The API key of a request: X-API-Key, or `Authorization: Bearer svc_...` as Stripe's clients send theirs. */
function apiKeyOf(req: Request): string | undefined {
  const header = req.get('x-api-key');
  if (header !== undefined) return header;
  const bearer = bearerToken(req);
  return bearer?.startsWith('svc_') ? bearer : undefined;
}

/**
 * An API key (integrations) or Bearer JWT + X-Tenant-Id (platform UI). Missing, malformed, unknown,
 * revoked and expired credentials all get the same 401 and message (credentialProblem adds what
 * their form alone shows). Every failure counts against the caller's
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
      return next(new AppError('unauthorized', INVALID_KEY_MESSAGE, [credentialProblem(req)]));
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

const UNKNOWN_KEY = 'Unknown, revoked or expired API key, or its owner was deactivated';
const NOT_A_KEY = 'Not an API key of this service: keys begin svc_live_sk_ or svc_sandbox_sk_';

/**
 * What the 401 says of the credentials sent, judged by their form alone: none at all, a key in the
 * wrong header or shape, a session token without its tenant. Whether a well-formed key is unknown,
 * revoked or expired is never told apart (nor is a session token's reason), so a guesser learns no
 * more than the spec's message, as with login.
 */
function credentialProblem(req: Request): FieldError {
  const header = req.get('x-api-key');
  if (header !== undefined) return { field: 'X-API-Key', message: API_KEY_PATTERN.test(header) ? UNKNOWN_KEY : NOT_A_KEY };
  const authorization = req.get('authorization');
  if (authorization === undefined) {
    return { field: 'X-API-Key', message: 'No API key sent: send it in the X-API-Key header, or as Authorization: Bearer <key>' };
  }
  const bearer = bearerToken(req);
  if (bearer === undefined) {
    return { field: 'Authorization', message: 'Not a Bearer credential: send Authorization: Bearer <key>, or the key in X-API-Key' };
  }
  if (bearer.startsWith('svc_')) return { field: 'Authorization', message: API_KEY_PATTERN.test(bearer) ? UNKNOWN_KEY : NOT_A_KEY };
  if (!req.get('x-tenant-id')) {
    return { field: 'X-Tenant-Id', message: "A session token (not an API key) needs X-Tenant-Id, its tenant's ID" };
  }
  const environment = req.get('x-environment');
  if (environment !== undefined && !(ENVIRONMENTS as readonly string[]).includes(environment)) {
    return { field: 'X-Environment', message: `Must be ${ENVIRONMENTS.map((e) => JSON.stringify(e)).join(' or ')}` };
  }
  return {
    field: 'Authorization',
    message:
      'Session token invalid or expired, not of the X-Tenant-Id tenant, or its user deactivated: sign in again (POST /v1/auth/login)',
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
