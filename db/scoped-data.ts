import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { ScopedRepository, ScopedRows, type TenantOwnedRow, type TenantRow, type TenantScope } from './scoped-repository';
import { scopedEntities, scopedSql, type ScopedSqlBuilder } from './scoped-sql';
import { hydrate, metadataOf } from './sql';
import { copyIntoStaging, type CopyValue } from './copy-rows';

/**
 * One tenant's data on one connection (or one transaction's): repositories and hand-written
 * statements that carry the scope themselves. Domain code reaches rows only through this (or the
 * unit of work built on it); cross-tenant paths use db/unscoped.ts, named so they stand out.
 */
export class ScopedData {
  constructor(
    protected readonly manager: EntityManager,
    readonly scope: TenantScope,
    /** Called before a read by ID joins a group (db/grouped-reads.ts): the domain context's beforeReadGroupWait. */
    private readonly beforeReadGroupWait?: () => void,
  ) {}

  repo<T extends TenantRow>(entity: EntityTarget<T>): ScopedRepository<T> {
    return new ScopedRepository(this.manager, entity, this.scope, this.beforeReadGroupWait);
  }

  /** The scope's rows of an entity without an `id` (join rows such as team_members): repo() less the by-id methods. */
  rows<T extends TenantOwnedRow>(entity: EntityTarget<T>): ScopedRows<T> {
    return new ScopedRows(this.manager, entity, this.scope);
  }

  /**
   * COPYs rows into a temporary staging table of this transaction (nobody else's rows, so no scope
   * applies; db/copy-rows.ts); the statements that move them on go through sql() as usual.
   */
  copyIntoStaging(table: string, columns: string[], rows: CopyValue[][]): Promise<void> {
    return copyIntoStaging(this.manager, table, columns, rows);
  }

  /**
   * Waits for, then holds until this transaction ends, the advisory lock named `name` in this
   * scope: what one writer of the scope must not do beside another (pass a cap together, decide
   * what already exists from rows the other has not committed). Only inside a transaction: outside
   * one the lock would end with the statement.
   */
  async lockScope(name: string): Promise<void> {
    const key = `${name}:${this.scope.tenantId}:${this.scope.environment}`;
    await this.sql((q) => `SELECT pg_advisory_xact_lock(hashtextextended(${q.value(key)}, 0))`);
  }

  /** Rows of one hand-written statement; see ScopedSqlBuilder for how the scope gets in. */
  sql<R = Record<string, unknown>>(build: (q: ScopedSqlBuilder) => string): Promise<R[]> {
    return scopedSql<R>(this.manager, this.scope, build);
  }

  /** As sql(), each row an `entity` (a statement ending in `RETURNING *`, or selecting `q.columns(entity, alias)`). */
  sqlEntities<T extends ObjectLiteral>(entity: EntityTarget<T>, build: (q: ScopedSqlBuilder) => string): Promise<T[]> {
    return scopedEntities(this.manager, this.scope, entity, build);
  }

  /** The `entity` in a row of sql() whose columns came from `q.columns(entity, alias, prefix)`. */
  entity<T extends ObjectLiteral>(entity: EntityTarget<T>, row: Record<string, unknown>, prefix = ''): T {
    return hydrate<T>(this.manager, metadataOf(this.manager, entity), row, prefix);
  }
}
