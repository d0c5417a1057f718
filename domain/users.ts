import { Team, TeamMember, User } from '../db/entities';
import { notifyRevocation, ownerRevocation } from '../lib/auth/key-revocation';
import { scopesForRole } from '../lib/auth/roles';
import { isSubset } from '../lib/auth/scopes';
import { AppError, notFound } from '../lib/errors';
import type { UserCreate, UserUpdate } from '../contracts/user';
import type { DomainContext } from './context';
import { addMembers, assertAllInTenant, teamIdsOfUsers } from './memberships';
import { hashPassword } from '../lib/auth/password';
import { unitOfWork } from './unit-of-work';

export interface UserWithTeams {
  user: User;
  teamIds: string[];
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === '23505';

/**
 * A caller manages users only up to its own privileges: it may not hand out a role, nor change
 * (password, status, teams, role) a user whose role grants scopes the caller does not hold.
 * Otherwise a `users:write` key creates an admin and logs in as it, or resets the owner's password.
 */
function assertWithinCaller(roleId: string, callerScopes: string[], field: string, what: string): void {
  if (isSubset(scopesForRole(roleId), callerScopes)) return;
  throw new AppError('forbidden', 'Insufficient permissions', [
    { field, message: `${what} role ${roleId} grants scopes this caller does not hold; use a key or user that holds them` },
  ]);
}

/** Users are shared by both environments, so a sandbox caller may not add them or set passwords. */
function assertLive(ctx: DomainContext, field: string, what: string): void {
  if (ctx.scope.environment === 'live') return;
  throw new AppError('forbidden', 'Insufficient permissions', [
    { field, message: `Users are shared by both environments: ${what} with a live key` },
  ]);
}

export async function createUser(ctx: DomainContext, callerScopes: string[], input: UserCreate): Promise<UserWithTeams> {
  assertLive(ctx, 'email', 'create users');
  assertWithinCaller(input.roleId, callerScopes, 'roleId', 'The');
  const passwordHash = await hashPassword(input.password);
  try {
    return await unitOfWork(ctx, async (tx) => {
      await assertAllInTenant(tx, Team, input.teamIds, 'teamIds');
      const user = await tx.repo(User).insert({
        email: input.email.toLowerCase(),
        passwordHash,
        firstName: input.firstName,
        lastName: input.lastName,
        phone: input.phone ?? null,
        roleId: input.roleId,
      });
      await addMembers(
        tx,
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
  const user = await ctx.data.repo(User).findById(id);
  if (!user) throw notFound('User');
  const teams = await teamIdsOfUsers(ctx.data, [user.id]);
  return { user, teamIds: teams.get(user.id) ?? [] };
}

export async function listUsers(ctx: DomainContext, q: { page: number; limit: number; status?: string[]; teamId?: string; q?: string }) {
  const qb = ctx.data.repo(User).select('u');
  if (q.status) qb.andWhere('u.status IN (:...status)', { status: q.status });
  if (q.teamId)
    qb.andWhere('EXISTS (SELECT 1 FROM team_members tm WHERE tm.user_id = u.id AND tm.team_id = :teamId)', { teamId: q.teamId });
  if (q.q) {
    const like = `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;
    qb.andWhere("(lower(u.email) LIKE :like OR lower(u.first_name || ' ' || u.last_name) LIKE :like)", { like });
  }
  const [users, total] = await qb.orderBy('u.created_at', 'ASC').addOrderBy('u.id', 'ASC').page(q.page, q.limit);
  const teams = await teamIdsOfUsers(
    ctx.data,
    users.map((u) => u.id),
  );
  return { rows: users.map((user) => ({ user, teamIds: teams.get(user.id) ?? [] })), total };
}

export async function updateUser(ctx: DomainContext, callerScopes: string[], id: string, patch: UserUpdate): Promise<UserWithTeams> {
  // Checked before hashing: a refused request should not cost an argon2 hash.
  const target = await ctx.data.repo(User).findById(id);
  if (!target) throw notFound('User');
  if (patch.password !== undefined) assertLive(ctx, 'password', 'set passwords');
  assertWithinCaller(target.roleId, callerScopes, 'id', "This user's");
  if (patch.roleId !== undefined) assertWithinCaller(patch.roleId, callerScopes, 'roleId', 'The');
  const passwordHash = patch.password ? await hashPassword(patch.password) : undefined;
  await unitOfWork(ctx, async (tx) => {
    const users = tx.repo(User);
    const user = await users.findById(id);
    if (!user) throw notFound('User');
    // The role may have changed since the check above; a concurrent promotion must not slip through.
    assertWithinCaller(user.roleId, callerScopes, 'id', "This user's");
    const { password: _password, teamIds, ...fields } = patch;
    Object.assign(user, fields, passwordHash ? { passwordHash } : {});
    await users.save(user);
    // Delivered on commit: every API process forgets the user's cached keys (they now answer 401).
    if (patch.status === 'deactivated') await notifyRevocation(tx, ownerRevocation(user.id));
    if (teamIds) {
      await assertAllInTenant(tx, Team, teamIds, 'teamIds');
      await tx.rows(TeamMember).deleteWhere({ userId: user.id });
      await addMembers(
        tx,
        teamIds.map((teamId) => ({ teamId, userId: user.id })),
      );
    }
  });
  return getUser(ctx, id);
}

/**
 * DELETE deactivates rather than erases: the user's ID stays resolvable in leads and audit logs,
 * while login, X-On-Behalf-Of, dashboard tokens and the API keys the user owns stop working at once.
 */
export async function deactivateUser(ctx: DomainContext, callerScopes: string[], id: string): Promise<UserWithTeams> {
  return updateUser(ctx, callerScopes, id, { status: 'deactivated' });
}
