import { In } from 'typeorm';
import { Team, TeamMember, User } from '../db/entities';
import { validationFailed } from '../lib/errors';
import type { ScopedData } from '../db/scoped-data';

/** IDs from a request body must name records of the caller's tenant; others are field errors. */
export async function assertAllInTenant(data: ScopedData, entity: typeof User | typeof Team, ids: string[], field: string): Promise<void> {
  if (ids.length === 0) return;
  const found = await data.repo<User | Team>(entity).find({ where: { id: In(ids) }, select: { id: true } });
  const known = new Set(found.map((r) => r.id));
  const errors = ids.flatMap((id, i) =>
    known.has(id) ? [] : [{ field: `${field}.${i}`, message: `${entity === User ? 'User' : 'Team'} not found` }],
  );
  if (errors.length) throw validationFailed(errors);
}

/** Adds the memberships; one that exists already stays as it is. */
export async function addMembers(data: ScopedData, pairs: { teamId: string; userId: string }[]): Promise<void> {
  await data.rows(TeamMember).insertIgnoringConflicts(pairs);
}

export async function teamIdsOfUsers(data: ScopedData, userIds: string[]): Promise<Map<string, string[]>> {
  const rows = userIds.length ? await data.rows(TeamMember).find({ where: { userId: In(userIds) }, order: { teamId: 'ASC' } }) : [];
  const map = new Map<string, string[]>(userIds.map((u) => [u, []]));
  for (const r of rows) map.get(r.userId)?.push(r.teamId);
  return map;
}

export async function memberIdsOfTeams(data: ScopedData, teamIds: string[]): Promise<Map<string, string[]>> {
  const rows = teamIds.length ? await data.rows(TeamMember).find({ where: { teamId: In(teamIds) }, order: { userId: 'ASC' } }) : [];
  const map = new Map<string, string[]>(teamIds.map((t) => [t, []]));
  for (const r of rows) map.get(r.teamId)?.push(r.userId);
  return map;
}
