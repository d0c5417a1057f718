import { z } from 'zod';
import { createUser, deactivateUser, getUser, listUsers, updateUser, type UserWithTeams } from '../../domain/users';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { User, UserCreate, UserIdParams, UserListQuery, UserUpdate } from '../../contracts/user';
import { serializeUser } from '../serializers/user';

const out = (u: UserWithTeams) => serializeUser(u.user, u.teamIds);

export function userRoutes(deps: AppDeps) {
  /** A deactivated user's keys answer 401 from the next request on, here and (by NOTIFY) elsewhere. */
  const forgetKeysIfDeactivated = (u: UserWithTeams) => {
    if (u.user.status === 'deactivated') deps.keyCache.evictOwner(u.user.id);
    return u;
  };
  const base = { tag: 'Users', auth: 'tenant' as const };
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/users',
      summary: "Create a user (the password is write-only; live callers only; a role within the caller's own scopes)",
      scope: 'users:write',
      body: UserCreate,
      response: User,
      handler: async ({ body, auth, ctx }) => ({
        data: out(await createUser(ctx, auth.scopes, body)),
        message: 'User created',
      }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/users',
      summary: 'List users',
      scope: 'users:read',
      query: UserListQuery,
      response: z.array(User),
      message: 'Users retrieved',
      serialize: out,
      handler: ({ query, ctx }) => listUsers(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/users/:id',
      summary: 'Get a user',
      scope: 'users:read',
      params: UserIdParams,
      response: User,
      handler: async ({ params, ctx }) => ({ data: out(await getUser(ctx, params.id)), message: 'User retrieved' }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/users/:id',
      summary: 'Update a user (teamIds replaces the memberships; status deactivated blocks the user)',
      scope: 'users:write',
      params: UserIdParams,
      body: UserUpdate,
      response: User,
      handler: async ({ params, body, auth, ctx }) => ({
        data: out(forgetKeysIfDeactivated(await updateUser(ctx, auth.scopes, params.id, body))),
        message: 'User updated',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/users/:id',
      summary: 'Deactivate a user (kept for history; can no longer log in or be acted for)',
      scope: 'users:write',
      params: UserIdParams,
      response: User,
      handler: async ({ params, auth, ctx }) => ({
        data: out(forgetKeysIfDeactivated(await deactivateUser(ctx, auth.scopes, params.id))),
        message: 'User deactivated',
      }),
    }),
  ];
}
