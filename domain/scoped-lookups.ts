import type { EntityTarget, ObjectLiteral } from 'typeorm';
import type { ScopedData } from '../db/scoped-data';
import type { ScopedQuery } from '../db/scoped-query';
import type { TenantRow } from '../db/scoped-repository';
import { User } from '../db/entities';
import { notFound, validationFailed } from '../lib/errors';

const DEACTIVATED = 'User is deactivated; assign an active user';

/** Why a user cannot be given new work: unknown in the tenant, or deactivated (`DELETE /v1/users/:id`). */
export const unassignableReason = (user: Pick<User, 'status'> | null | undefined): string | null =>
  !user ? 'User not found' : user.status === 'active' ? null : DEACTIVATED;

/**
 * A record's assignee or owner must be an active user of the tenant (422 on the field otherwise):
 * nobody is handed leads, deals or tasks after leaving. A value equal to `current` is not a change
 * (a client sending the whole record back), so it passes even if that user left since.
 */
export async function assertAssignable(
  data: ScopedData,
  userId: string | null | undefined,
  field: string,
  current?: string | null,
): Promise<void> {
  if (userId === null || userId === undefined || userId === current) return;
  const reason = unassignableReason(await data.repo(User).findById(userId));
  if (reason) throw validationFailed([{ field, message: reason }]);
}

/** Loads a row of the scope and locks it for the transaction, so concurrent state moves serialise. */
export async function findForUpdate<T extends TenantRow>(data: ScopedData, entity: EntityTarget<T>, id: string, label: string): Promise<T> {
  const row = await data.repo(entity).findByIdForUpdate(id);
  if (!row) throw notFound(label);
  return row;
}

export async function findOrFail<T extends TenantRow>(data: ScopedData, entity: EntityTarget<T>, id: string, label: string): Promise<T> {
  const row = await data.repo(entity).findById(id);
  if (!row) throw notFound(label);
  return row;
}

/** A body field naming a record must name one the caller can see: otherwise a 422 on that field. */
export async function assertExists<T extends TenantRow>(
  data: ScopedData,
  entity: EntityTarget<T>,
  id: string | null | undefined,
  field: string,
  label: string,
): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await data.repo(entity).findById(id))) throw validationFailed([{ field, message: `${label} not found` }]);
}

/** Offset pagination shared by the list operations, its total bounded (countedPage). */
export async function pageOf<T extends ObjectLiteral>(
  qb: ScopedQuery<T>,
  page: number,
  limit: number,
): Promise<{ rows: T[]; total: number }> {
  const [rows, total] = await qb.page(page, limit);
  return { rows, total };
}
