import type { DataSource, EntityManager, EntityTarget, ObjectLiteral, Repository } from 'typeorm';
import { ScopedQuery } from './scoped-query';
import { insertManySql, metadataOf, Params, queryRows } from './sql';

/**
 * The door for the few paths that are nobody's tenant or span tenants: login and key resolution
 * (the tenant is not known yet), public forms and tracking links (the tenant comes from the form
 * or the signed link), a provider's status callback (the message is found by the ID its signed
 * URL names, or by its provider ID), sweeps over every tenant, tenant administration and the
 * global addon catalog. Everything else reaches rows through a scope (ScopedData, the unit of
 * work). It has its own name so that every use is easy to find and review: `grep -rn "unscoped(" .`.
 */
export function unscoped(db: DataSource | EntityManager) {
  return {
    /** TypeORM's repository, with no scope. */
    repo: <T extends ObjectLiteral>(entity: EntityTarget<T>): Repository<T> => db.getRepository(entity),
    /** A select over every row of `entity` (ScopedQuery's interface, nothing added). */
    select: <T extends ObjectLiteral>(entity: EntityTarget<T>, alias: string): ScopedQuery<T> =>
      new ScopedQuery(db.getRepository(entity).createQueryBuilder(alias), (qb) => qb),
    /** Rows of one hand-written statement. */
    rows: <R = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> => db.query(sql, params),
    /** Rows of any tenants in one prepared unnest INSERT (see insertManySql); the rows must give the same columns. */
    insertMany: async <T extends ObjectLiteral>(entity: EntityTarget<T>, rows: Partial<T>[]): Promise<void> => {
      const manager = 'manager' in db ? db.manager : db;
      const p = new Params();
      await queryRows(manager, insertManySql(manager, metadataOf(manager, entity), rows, p), p);
    },
  };
}
