import type { EntityTarget, ObjectLiteral } from 'typeorm';
import type { ScopedData } from '../db/scoped-data';
import type { ScopedQuery } from '../db/scoped-query';
import type { TenantRow } from '../db/scoped-repository';
import { notFound, validationFailed } from '../lib/errors';

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
