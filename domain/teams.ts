import { Team, TeamMember, User } from '../db/entities';
import { notFound } from '../lib/errors';
import type { TeamCreate, TeamUpdate } from '../contracts/team';
import type { DomainContext } from './context';
import { addMembers, assertAllInTenant, memberIdsOfTeams } from './memberships';
import { unitOfWork } from './unit-of-work';

export interface TeamWithMembers {
  team: Team;
  memberIds: string[];
}

export async function createTeam(ctx: DomainContext, input: TeamCreate): Promise<TeamWithMembers> {
  return unitOfWork(ctx, async (tx) => {
    await assertAllInTenant(tx, User, input.memberIds, 'memberIds');
    const team = await tx.repo(Team).insert({ name: input.name, description: input.description ?? null });
    const memberIds = [...new Set(input.memberIds)];
    await addMembers(
      tx,
      memberIds.map((userId) => ({ teamId: team.id, userId })),
    );
    return { team, memberIds };
  });
}

export async function getTeam(ctx: DomainContext, id: string): Promise<TeamWithMembers> {
  const team = await ctx.data.repo(Team).findById(id);
  if (!team) throw notFound('Team');
  const members = await memberIdsOfTeams(ctx.data, [team.id]);
  return { team, memberIds: members.get(team.id) ?? [] };
}

export async function listTeams(ctx: DomainContext, q: { page: number; limit: number; q?: string }) {
  const qb = ctx.data.repo(Team).select('t');
  if (q.q) qb.andWhere('lower(t.name) LIKE :like', { like: `%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` });
  const [teams, total] = await qb.orderBy('t.created_at', 'ASC').addOrderBy('t.id', 'ASC').page(q.page, q.limit);
  const members = await memberIdsOfTeams(
    ctx.data,
    teams.map((t) => t.id),
  );
  return { rows: teams.map((team) => ({ team, memberIds: members.get(team.id) ?? [] })), total };
}

export async function updateTeam(ctx: DomainContext, id: string, patch: TeamUpdate): Promise<TeamWithMembers> {
  await unitOfWork(ctx, async (tx) => {
    const teams = tx.repo(Team);
    const team = await teams.findById(id);
    if (!team) throw notFound('Team');
    if (patch.name !== undefined) team.name = patch.name;
    if (patch.description !== undefined) team.description = patch.description;
    await teams.save(team);
    if (patch.memberIds) {
      await assertAllInTenant(tx, User, patch.memberIds, 'memberIds');
      await tx.rows(TeamMember).deleteWhere({ teamId: team.id });
      await addMembers(
        tx,
        [...new Set(patch.memberIds)].map((userId) => ({ teamId: team.id, userId })),
      );
    }
  });
  return getTeam(ctx, id);
}

export async function deleteTeam(ctx: DomainContext, id: string): Promise<TeamWithMembers> {
  const existing = await getTeam(ctx, id);
  await unitOfWork(ctx, async (tx) => {
    await tx.rows(TeamMember).deleteWhere({ teamId: id });
    await tx.repo(Team).deleteById(id);
  });
  return existing;
}

export async function addTeamMembers(ctx: DomainContext, id: string, userIds: string[]): Promise<TeamWithMembers> {
  await getTeam(ctx, id);
  await unitOfWork(ctx, async (tx) => {
    await assertAllInTenant(tx, User, userIds, 'userIds');
    await addMembers(
      tx,
      [...new Set(userIds)].map((userId) => ({ teamId: id, userId })),
    );
  });
  return getTeam(ctx, id);
}

export async function removeTeamMember(ctx: DomainContext, id: string, userId: string): Promise<TeamWithMembers> {
  const { memberIds } = await getTeam(ctx, id);
  if (!memberIds.includes(userId)) throw notFound('Team member');
  await ctx.data.rows(TeamMember).deleteWhere({ teamId: id, userId });
  return getTeam(ctx, id);
}
