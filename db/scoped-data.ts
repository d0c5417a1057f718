import type { EntityManager, EntityTarget } from 'typeorm';
import { ScopedRepository, ScopedRows, type TenantOwnedRow, type TenantRow, type TenantScope } from './scoped-repository';
import { scopedSql, type ScopedSqlBuilder } from './scoped-sql';

/**
 * One tenant's data on one connection (or one transaction's): repositories and hand-written
 * statements that carry the scope themselves. Domain code reaches rows only through this (or the
 * unit of work built on it); cross-tenant paths use db/unscoped.ts, named so they stand out.
 */
export class ScopedData {
  constructor(
    protected readonly manager: EntityManager,
    readonly scope: TenantScope,
  ) {}

  repo<T extends TenantRow>(entity: EntityTarget<T>): ScopedRepository<T> {
    return new ScopedRepository(this.manager, entity, this.scope);
  }

  /** The scope's rows of an entity without an `id` (join rows such as team_members): repo() less the by-id methods. */
  rows<T extends TenantOwnedRow>(entity: EntityTarget<T>): ScopedRows<T> {
    return new ScopedRows(this.manager, entity, this.scope);
  }

  /** Rows of one hand-written statement; see ScopedSqlBuilder for how the scope gets in. */
  sql<R = Record<string, unknown>>(build: (q: ScopedSqlBuilder) => string): Promise<R[]> {
    return scopedSql<R>(this.manager, this.scope, build);
  }
}

/**
 * The connection under a ScopedData, for the statement builders that compose several scoped
 * writes into one hand-tuned statement (lead create, outbox insert, search upsert) and have not
 * moved onto ScopedSqlBuilder yet. Lint allows it only in the files listed in eslint.config.mjs.
 */
export const managerOf = (data: ScopedData): EntityManager => data['manager'];
