import { login } from '../../domain/login';
import { teamIdsOfUsers } from '../../domain/memberships';
import { AppError } from '../../lib/errors';
import type { AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import { LoginRequest, LoginResponse } from '../schemas/auth';
import { serializeUser } from '../serializers/user';

export function authRoutes(deps: AppDeps) {
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
      // Wrong credentials, and past AUTH_FAILURE_LIMIT_PER_MINUTE failures from one IP.
      errors: [401, 429],
      handler: async ({ body, req }) => {
        try {
          const session = await login(deps.db, body);
          const teams = await teamIdsOfUsers(deps.db.manager, session.user.tenantId, [session.user.id]);
          return {
            data: {
              accessToken: session.accessToken,
              tokenType: 'Bearer' as const,
              expiresIn: session.expiresIn,
              tenantId: session.tenantId,
              user: serializeUser(session.user, teams.get(session.user.id) ?? []),
            },
            message: 'Logged in',
          };
        } catch (err) {
          if (err instanceof AppError && err.code === 'unauthorized') {
            const { blocked, retryAfterSeconds } = await deps.limiter.authFailure(req.ip ?? 'unknown');
            if (blocked)
              throw new AppError('rate_limited', 'Too many failed login attempts; retry later', undefined, {
                'Retry-After': String(retryAfterSeconds),
              });
          }
          throw err;
        }
      },
    }),
  ];
}
