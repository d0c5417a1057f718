import { z } from 'zod';
import { createUser, deactivateUser, getUser, listUsers, updateUser, type UserWithTeams } from '../../domain/users';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { User, UserCreate, UserIdParams, UserListQuery, UserUpdate } from '../schemas/user';
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
      handler: async ({ body, auth }) => ({
        data: out(await createUser(domainContext(deps, auth), auth.scopes, body)),
        message: 'User created',
      }),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/users',
      summary: 'List users',
      scope: 'users:read',
      query: UserListQuery,
      response: z.array(User),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listUsers(domainContext(deps, auth), query);
        return { data: rows.map(out), pagination: paginate(query.page, query.limit, total), message: 'Users retrieved' };
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/users/:id',
      summary: 'Get a user',
      scope: 'users:read',
      params: UserIdParams,
      response: User,
      handler: async ({ params, auth }) => ({ data: out(await getUser(domainContext(deps, auth), params.id)), message: 'User retrieved' }),
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
      handler: async ({ params, body, auth }) => ({
        data: out(forgetKeysIfDeactivated(await updateUser(domainContext(deps, auth), auth.scopes, params.id, body))),
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
      handler: async ({ params, auth }) => ({
        data: out(forgetKeysIfDeactivated(await deactivateUser(domainContext(deps, auth), auth.scopes, params.id))),
        message: 'User deactivated',
      }),
    }),
  ];
}
