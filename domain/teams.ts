import { Team, TeamMember, User } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { notFound } from '../lib/errors';
import type { TeamCreate, TeamUpdate } from '../api/schemas/team';
import type { DomainContext } from './context';
import { addMembers, assertAllInTenant, memberIdsOfTeams } from './memberships';
import { countedPage } from '../db/counted-page';

export interface TeamWithMembers {
  team: Team;
  memberIds: string[];
}

export async function createTeam(ctx: DomainContext, input: TeamCreate): Promise<TeamWithMembers> {
  return ctx.db.transaction(async (m) => {
    await assertAllInTenant(m, ctx.scope, User, input.memberIds, 'memberIds');
    const team = await scoped(m, Team, ctx.scope).insert({ name: input.name, description: input.description ?? null });
    const memberIds = [...new Set(input.memberIds)];
    await addMembers(
      m,
      ctx.scope.tenantId,
      memberIds.map((userId) => ({ teamId: team.id, userId })),
    );
    return { team, memberIds };
  });
}

export async function getTeam(ctx: DomainContext, id: string): Promise<TeamWithMembers> {
  const team = await scoped(ctx.db.manager, Team, ctx.scope).findById(id);
  if (!team) throw notFound('Team');
  const members = await memberIdsOfTeams(ctx.db.manager, ctx.scope.tenantId, [team.id]);
  return { team, memberIds: members.get(team.id) ?? [] };
}

export async function listTeams(ctx: DomainContext, q: { page: number; limit: number; q?: string }) {
  const qb = scoped(ctx.db.manager, Team, ctx.scope).query('t');
  if (q.q) qb.andWhere('lower(t.name) LIKE :like', { like: `%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` });
  const [teams, total] = await countedPage(qb.orderBy('t.created_at', 'ASC').addOrderBy('t.id', 'ASC'), q.page, q.limit);
  const members = await memberIdsOfTeams(
    ctx.db.manager,
    ctx.scope.tenantId,
    teams.map((t) => t.id),
  );
  return { rows: teams.map((team) => ({ team, memberIds: members.get(team.id) ?? [] })), total };
}

export async function updateTeam(ctx: DomainContext, id: string, patch: TeamUpdate): Promise<TeamWithMembers> {
  await ctx.db.transaction(async (m) => {
    const teams = scoped(m, Team, ctx.scope);
    const team = await teams.findById(id);
    if (!team) throw notFound('Team');
    if (patch.name !== undefined) team.name = patch.name;
    if (patch.description !== undefined) team.description = patch.description;
    await teams.save(team);
    if (patch.memberIds) {
      await assertAllInTenant(m, ctx.scope, User, patch.memberIds, 'memberIds');
      await m.getRepository(TeamMember).delete({ tenantId: ctx.scope.tenantId, teamId: team.id });
      await addMembers(
        m,
        ctx.scope.tenantId,
        [...new Set(patch.memberIds)].map((userId) => ({ teamId: team.id, userId })),
      );
    }
  });
  return getTeam(ctx, id);
}

export async function deleteTeam(ctx: DomainContext, id: string): Promise<TeamWithMembers> {
  const existing = await getTeam(ctx, id);
  await ctx.db.transaction(async (m) => {
    await m.getRepository(TeamMember).delete({ tenantId: ctx.scope.tenantId, teamId: id });
    await scoped(m, Team, ctx.scope).deleteById(id);
  });
  return existing;
}

export async function addTeamMembers(ctx: DomainContext, id: string, userIds: string[]): Promise<TeamWithMembers> {
  await getTeam(ctx, id);
  await ctx.db.transaction(async (m) => {
    await assertAllInTenant(m, ctx.scope, User, userIds, 'userIds');
    await addMembers(
      m,
      ctx.scope.tenantId,
      [...new Set(userIds)].map((userId) => ({ teamId: id, userId })),
    );
  });
  return getTeam(ctx, id);
}

export async function removeTeamMember(ctx: DomainContext, id: string, userId: string): Promise<TeamWithMembers> {
  const { memberIds } = await getTeam(ctx, id);
  if (!memberIds.includes(userId)) throw notFound('Team member');
  await ctx.db.getRepository(TeamMember).delete({ tenantId: ctx.scope.tenantId, teamId: id, userId });
  return getTeam(ctx, id);
}
