import { z } from 'zod';
import {
  addTeamMembers,
  createTeam,
  deleteTeam,
  getTeam,
  listTeams,
  removeTeamMember,
  updateTeam,
  type TeamWithMembers,
} from '../../domain/teams';
import { defineListRoute, defineRoute } from '../http/route';
import { Team, TeamCreate, TeamIdParams, TeamListQuery, TeamMemberParams, TeamMembersAdd, TeamUpdate } from '../../contracts/team';
import { serializeTeam } from '../serializers/user';

const out = (t: TeamWithMembers) => serializeTeam(t.team, t.memberIds);

export function teamRoutes() {
  const base = { tag: 'Teams', auth: 'tenant' as const };
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/teams',
      summary: 'Create a team',
      scope: 'teams:write',
      body: TeamCreate,
      response: Team,
      handler: async ({ body, ctx }) => ({ data: out(await createTeam(ctx, body)), message: 'Team created' }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/teams',
      summary: 'List teams',
      scope: 'teams:read',
      query: TeamListQuery,
      response: z.array(Team),
      message: 'Teams retrieved',
      serialize: out,
      handler: ({ query, ctx }) => listTeams(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/teams/:id',
      summary: 'Get a team with its members',
      scope: 'teams:read',
      params: TeamIdParams,
      response: Team,
      handler: async ({ params, ctx }) => ({ data: out(await getTeam(ctx, params.id)), message: 'Team retrieved' }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/teams/:id',
      summary: 'Update a team (memberIds replaces the members)',
      scope: 'teams:write',
      params: TeamIdParams,
      body: TeamUpdate,
      response: Team,
      handler: async ({ params, body, ctx }) => ({
        data: out(await updateTeam(ctx, params.id, body)),
        message: 'Team updated',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/teams/:id',
      summary: 'Delete a team (its users stay)',
      scope: 'teams:write',
      params: TeamIdParams,
      response: Team,
      handler: async ({ params, ctx }) => ({ data: out(await deleteTeam(ctx, params.id)), message: 'Team deleted' }),
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/teams/:id/members',
      summary: 'Add members to a team',
      scope: 'teams:write',
      params: TeamIdParams,
      body: TeamMembersAdd,
      response: Team,
      status: 200,
      handler: async ({ params, body, ctx }) => ({
        data: out(await addTeamMembers(ctx, params.id, body.userIds)),
        message: 'Members added',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/teams/:id/members/:userId',
      summary: 'Remove a member from a team',
      scope: 'teams:write',
      params: TeamMemberParams,
      response: Team,
      handler: async ({ params, ctx }) => ({
        data: out(await removeTeamMember(ctx, params.id, params.userId)),
        message: 'Member removed',
      }),
    }),
  ];
}
