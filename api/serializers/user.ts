import type { Team as TeamEntity, User as UserEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Team } from '../../contracts/team';
import type { User } from '../../contracts/user';

/** Whitelisted fields only: the password hash can never reach a response. */
export function serializeUser(u: UserEntity, teamIds: string[]): User {
  return {
    id: encodeId('user', u.id),
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    phone: u.phone,
    roleId: u.roleId,
    status: u.status,
    teamIds: teamIds.map((t) => encodeId('team', t)),
    createdAt: u.createdAt.toISOString(),
    updatedAt: u.updatedAt.toISOString(),
  };
}

export function serializeTeam(t: TeamEntity, memberIds: string[]): Team {
  return {
    id: encodeId('team', t.id),
    name: t.name,
    description: t.description,
    memberIds: memberIds.map((m) => encodeId('user', m)),
    memberCount: memberIds.length,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
