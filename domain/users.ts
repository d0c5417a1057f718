import argon2 from 'argon2';
import { Team, TeamMember, User } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { AppError, notFound } from '../lib/errors';
import type { UserCreate, UserUpdate } from '../api/schemas/user';
import type { DomainContext } from './context';
import { addMembers, assertAllInTenant, teamIdsOfUsers } from './memberships';
import { countedPage } from '../db/counted-page';

export interface UserWithTeams {
  user: User;
  teamIds: string[];
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

export async function createUser(ctx: DomainContext, input: UserCreate): Promise<UserWithTeams> {
  const passwordHash = await argon2.hash(input.password);
  try {
    return await ctx.db.transaction(async (m) => {
      await assertAllInTenant(m, ctx.scope, Team, input.teamIds, 'teamIds');
      const user = await scoped(m, User, ctx.scope).insert({
        email: input.email.toLowerCase(),
        passwordHash,
        firstName: input.firstName,
        lastName: input.lastName,
        phone: input.phone ?? null,
        roleId: input.roleId,
      });
      await addMembers(
        m,
        ctx.scope.tenantId,
        input.teamIds.map((teamId) => ({ teamId, userId: user.id })),
      );
      return { user, teamIds: input.teamIds };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('conflict', 'A user with this email already exists');
    throw err;
  }
}

export async function getUser(ctx: DomainContext, id: string): Promise<UserWithTeams> {
  const user = await scoped(ctx.db.manager, User, ctx.scope).findById(id);
  if (!user) throw notFound('User');
  const teams = await teamIdsOfUsers(ctx.db.manager, ctx.scope.tenantId, [user.id]);
  return { user, teamIds: teams.get(user.id) ?? [] };
}

export async function listUsers(ctx: DomainContext, q: { page: number; limit: number; status?: string; teamId?: string; q?: string }) {
  const qb = scoped(ctx.db.manager, User, ctx.scope).query('u');
  if (q.status) qb.andWhere('u.status = :status', { status: q.status });
  if (q.teamId)
    qb.andWhere('EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.team_id = :teamId)', { teamId: q.teamId });
  if (q.q) {
    const like = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;
    qb.andWhere("(lower(u.email) LIKE :like OR lower(u.first_name || ' ' || u.last_name) LIKE :like)", { like });
  }
  const [users, total] = await countedPage(qb.orderBy('u.created_at', 'ASC').addOrderBy('u.id', 'ASC'), q.page, q.limit);
  const teams = await teamIdsOfUsers(
    ctx.db.manager,
    ctx.scope.tenantId,
    users.map((u) => u.id),
  );
  return { rows: users.map((user) => ({ user, teamIds: teams.get(user.id) ?? [] })), total };
}

export async function updateUser(ctx: DomainContext, id: string, patch: UserUpdate): Promise<UserWithTeams> {
  const passwordHash = patch.password ? await argon2.hash(patch.password) : undefined;
  await ctx.db.transaction(async (m) => {
    const users = scoped(m, User, ctx.scope);
    const user = await users.findById(id);
    if (!user) throw notFound('User');
    const { password: _password, teamIds, ...fields } = patch;
    Object.assign(user, fields, passwordHash ? { passwordHash } : {});
    await users.save(user);
    if (teamIds) {
      await assertAllInTenant(m, ctx.scope, Team, teamIds, 'teamIds');
      await m.getRepository(TeamMember).delete({ tenantId: ctx.scope.tenantId, userId: user.id });
      await addMembers(
        m,
        ctx.scope.tenantId,
        teamIds.map((teamId) => ({ teamId, userId: user.id })),
      );
    }
  });
  return getUser(ctx, id);
}

/**
 * DELETE deactivates rather than erases: the user's ID stays resolvable in leads and audit logs,
 * while login, X-On-Behalf-Of and dashboard tokens stop working at once.
 */
export async function deactivateUser(ctx: DomainContext, id: string): Promise<UserWithTeams> {
  return updateUser(ctx, id, { status: 'deactivated' });
}
