import { In, type EntityManager } from 'typeorm';
import { Team, TeamMember, User } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { validationFailed } from '../lib/errors';
import { managerOf, type ScopedData } from '../db/scoped-data';

/** IDs from a request body must name records of the caller's tenant; others are field errors. */
export async function assertAllInTenant(data: ScopedData, entity: typeof User | typeof Team, ids: string[], field: string): Promise<void> {
  const m = managerOf(data);
  const { scope } = data;
  if (ids.length === 0) return;
  const found = await scoped<User | Team>(m, entity, scope).find({ where: { id: In(ids) }, select: { id: true } });
  const known = new Set(found.map((r) => r.id));
  const errors = ids.flatMap((id, i) =>
    known.has(id) ? [] : [{ field: `${field}.${i}`, message: `${entity === User ? 'User' : 'Team'} not found` }],
  );
  if (errors.length) throw validationFailed(errors);
}

export async function addMembers(m: EntityManager, tenantId: string, pairs: { teamId: string; userId: string }[]): Promise<void> {
  if (pairs.length === 0) return;
  await m
    .createQueryBuilder()
    .insert()
    .into(TeamMember)
    .values(pairs.map((p) => ({ ...p, tenantId })))
    .orIgnore()
    .execute();
}

export async function teamIdsOfUsers(m: EntityManager, tenantId: string, userIds: string[]): Promise<Map<string, string[]>> {
  const rows = userIds.length
    ? await m.getRepository(TeamMember).find({ where: { tenantId, userId: In(userIds) }, order: { teamId: 'ASC' } })
    : [];
  const map = new Map<string, string[]>(userIds.map((u) => [u, []]));
  for (const r of rows) map.get(r.userId)?.push(r.teamId);
  return map;
}

export async function memberIdsOfTeams(m: EntityManager, tenantId: string, teamIds: string[]): Promise<Map<string, string[]>> {
  const rows = teamIds.length
    ? await m.getRepository(TeamMember).find({ where: { tenantId, teamId: In(teamIds) }, order: { userId: 'ASC' } })
    : [];
  const map = new Map<string, string[]>(teamIds.map((t) => [t, []]));
  for (const r of rows) map.get(r.teamId)?.push(r.userId);
  return map;
}
