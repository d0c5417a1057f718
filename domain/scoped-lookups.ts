import type { EntityManager, EntityTarget, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { scoped, type TenantRow, type TenantScope } from '../db/scoped-repository';
import { notFound, validationFailed } from '../lib/errors';
import { countedPage } from '../db/counted-page';

/** Loads a row of the scope and locks it for the transaction, so concurrent state moves serialise. */
export async function findForUpdate<T extends TenantRow>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  scope: TenantScope,
  id: string,
  label: string,
): Promise<T> {
  const row = await scoped(manager, entity, scope).findByIdForUpdate(id);
  if (!row) throw notFound(label);
  return row;
}

export async function findOrFail<T extends TenantRow>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  scope: TenantScope,
  id: string,
  label: string,
): Promise<T> {
  const row = await scoped(manager, entity, scope).findById(id);
  if (!row) throw notFound(label);
  return row;
}

/** A body field naming a record must name one the caller can see: otherwise a 422 on that field. */
export async function assertExists<T extends TenantRow>(
  manager: EntityManager,
  entity: EntityTarget<T>,
  scope: TenantScope,
  id: string | null | undefined,
  field: string,
  label: string,
): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await scoped(manager, entity, scope).findById(id))) throw validationFailed([{ field, message: `${label} not found` }]);
}

/** Offset pagination shared by the list operations, its total bounded (countedPage). */
export async function pageOf<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  page: number,
  limit: number,
): Promise<{ rows: T[]; total: number }> {
  const [rows, total] = await countedPage(qb, page, limit);
  return { rows, total };
}
