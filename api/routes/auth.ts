import { login, loginBlocked } from '../../domain/login';
import { LoginThrottle } from '../../domain/login-throttle';
import { scopesForRole } from '../../lib/auth/roles';
import { AppError } from '../../lib/errors';
import type { AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import { LoginRequest, LoginResponse } from '../../contracts/auth';
import { serializeUser } from '../serializers/user';

export function authRoutes(deps: AppDeps) {
  const throttle = new LoginThrottle(deps.db);
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/login',
      summary: 'Log in to the platform UI: returns a JWT for Authorization: Bearer, used with X-Tenant-Id',
      tag: 'Auth',
      auth: 'public',
      body: LoginRequest,
      response: LoginResponse,
      status: 200,
      // Wrong credentials; 429 past AUTH_FAILURE_LIMIT_PER_MINUTE failures from one IP, or while the
      // account is in backoff after repeated failures (domain/login-throttle.ts).
      errors: [401, 429],
      handler: async ({ body, req }) => {
        const ip = req.ip ?? 'unknown';
        const ipBlock = await deps.limiter.authBlocked(ip);
        if (ipBlock.blocked) throw loginBlocked(ipBlock.retryAfterSeconds);
        try {
          const session = await login(deps.db, throttle, body);
          return {
            data: {
              accessToken: session.accessToken,
              tokenType: 'Bearer' as const,
              expiresIn: session.expiresIn,
              tenantId: session.tenantId,
              user: serializeUser(session.user, session.teamIds),
              scopes: scopesForRole(session.user.roleId),
            },
            message: 'Logged in',
          };
        } catch (err) {
          if (err instanceof AppError && err.code === 'unauthorized') {
            const { blocked, retryAfterSeconds } = await deps.limiter.authFailure(ip);
            if (blocked) throw loginBlocked(retryAfterSeconds);
          }
          throw err;
        }
      },
    }),
  ];
}
