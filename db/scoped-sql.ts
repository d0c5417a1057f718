import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { TenantScope } from './scoped-repository';
import { hydrate, insertManySql, insertSql, metadataOf, Params, queryRows, Raw, selectList, tableOf, type InsertManyOptions } from './sql';

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Builds one hand-written statement over a tenant's rows. Names come from entity metadata, values
 * become parameters, and the scope comes from here, never from the caller:
 * - `from(Entity, alias)` reads only the scope's rows (a subquery PostgreSQL flattens);
 * - `insert(Entity, values)` and `insertMany(Entity, rows)` write rows with the scope's tenant
 *   (and environment) set by themselves; `deleteFrom(Entity, condition)` deletes only the scope's rows;
 * - `table(Entity)` names a table, and then the statement must also use `scope()` (the
 *   predicate) or `scopeValues()` (the tenant and environment as parameters), or it is refused.
 *   The check is per statement, not per table: a statement naming several tables scopes each.
 */
export class ScopedSqlBuilder {
  readonly params = new Params();
  private tablesNamed = 0;
  private scopeUsed = false;

  constructor(
    private readonly manager: EntityManager,
    private readonly tenantScope: TenantScope,
  ) {}

  /** `$n` for a value. */
  value(v: unknown): string {
    return this.params.add(v);
  }

  /** The quoted column of an entity property (`col(Lead, 'emailNormalized')` → `"email_normalized"`). */
  col<T extends ObjectLiteral>(entity: EntityTarget<T>, property: keyof T & string): string {
    const column = metadataOf(this.manager, entity).findColumnWithPropertyName(property);
    if (!column) throw new Error(`${String(property)} is not a column of ${metadataOf(this.manager, entity).name}`);
    return quote(column.databaseName);
  }

  /** The scope's rows of a table, as a FROM item named `alias`. */
  from(entity: EntityTarget<ObjectLiteral>, alias: string): string {
    const meta = metadataOf(this.manager, entity);
    return `(SELECT * FROM ${tableOf(meta)} WHERE ${this.predicate(meta.findColumnWithPropertyName('environment') !== undefined)}) ${alias}`;
  }

  /** A table to write (or to read under a predicate of its own); the statement must scope it with scope() or scopeValues(). */
  table(entity: EntityTarget<ObjectLiteral>): string {
    this.tablesNamed++;
    return tableOf(metadataOf(this.manager, entity));
  }

  /**
   * `INSERT INTO table (cols) SELECT $1::type, ... [WHERE where] [onConflict]` (see insertSql) of
   * one row, its tenant_id (and environment) those of the scope whatever `values` says.
   */
  insert(entity: EntityTarget<ObjectLiteral>, values: ObjectLiteral, opts: { where?: string; onConflict?: string } = {}): string {
    const meta = metadataOf(this.manager, entity);
    const partitioned = meta.findColumnWithPropertyName('environment') !== undefined;
    const { tenantId, environment } = this.tenantScope;
    this.tablesNamed++;
    this.scopeUsed = true;
    return insertSql(this.manager, meta, values, this.params, opts, partitioned ? { tenantId, environment } : { tenantId });
  }

  /**
   * `INSERT INTO table (cols) SELECT * FROM unnest($1::type[], ...)` of many rows (see
   * insertManySql, `computed` included), each row's tenant_id (and environment) the scope's: one
   * parameter each for the whole statement, not an array repeating it per row, whatever the rows say.
   */
  insertMany(
    entity: EntityTarget<ObjectLiteral>,
    rows: ObjectLiteral[],
    computed: Record<string, string> = {},
    opts: InsertManyOptions = {},
  ): string {
    const meta = metadataOf(this.manager, entity);
    const partitioned = meta.findColumnWithPropertyName('environment') !== undefined;
    this.tablesNamed++;
    this.scopeUsed = true;
    const scope: Record<string, string> = { tenantId: this.tenantParam() };
    if (partitioned) scope.environment = this.environmentParam();
    return insertManySql(this.manager, meta, rows, this.params, { ...computed, ...scope }, opts);
  }

  /** `DELETE FROM table WHERE <scope> AND (condition)`: the caller's condition cannot widen it. */
  deleteFrom(entity: EntityTarget<ObjectLiteral>, condition: string): string {
    const meta = metadataOf(this.manager, entity);
    return `DELETE FROM ${this.table(entity)} WHERE ${this.scope(undefined, { environment: meta.findColumnWithPropertyName('environment') !== undefined })} AND (${condition})`;
  }

  /** A column value written as SQL text (an expression over the statement's other parts), for insert(). */
  raw(text: string): Raw {
    return new Raw(text);
  }

  /** The entity's columns under `alias`, as `alias.col AS "<prefix>col"`: rows of several tables in one result row (see ScopedData.entity). */
  columns(entity: EntityTarget<ObjectLiteral>, alias: string, prefix = '', only?: readonly string[]): string {
    return selectList(metadataOf(this.manager, entity), alias, prefix, only);
  }

  /** `[alias.]tenant_id = $n AND [alias.]environment = $m`. */
  scope(alias?: string, opts: { environment?: boolean } = {}): string {
    this.scopeUsed = true;
    return this.predicate(opts.environment ?? true, alias);
  }

  /**
   * The scope's tenant and environment as two typed parameters (`$n::bigint`, `$m::varchar`): an
   * INSERT's values, or a predicate that must reuse them (a statement of several scoped parts).
   */
  scopeValues(): [tenantId: string, environment: string] {
    this.scopeUsed = true;
    return [this.tenantParam(), this.environmentParam()];
  }

  private tenantParam(): string {
    return `${this.value(this.tenantScope.tenantId)}::bigint`;
  }

  private environmentParam(): string {
    return `${this.value(this.tenantScope.environment)}::varchar`;
  }

  assertScoped(): void {
    if (this.tablesNamed > 0 && !this.scopeUsed)
      throw new Error('A scoped statement names a table but never applies the scope: use scope() or scopeValues().');
  }

  private predicate(partitioned: boolean, alias?: string): string {
    const a = alias ? `${alias}.` : '';
    const tenant = `${a}tenant_id = ${this.value(this.tenantScope.tenantId)}`;
    return partitioned ? `${tenant} AND ${a}environment = ${this.value(this.tenantScope.environment)}` : tenant;
  }
}

/** Runs a statement built by `build` within the scope; returns its rows. */
export async function scopedSql<R = Record<string, unknown>>(
  manager: EntityManager,
  scope: TenantScope,
  build: (q: ScopedSqlBuilder) => string,
): Promise<R[]> {
  const q = new ScopedSqlBuilder(manager, scope);
  const text = build(q);
  q.assertScoped();
  return (await queryRows(manager, text, q.params)) as R[];
}

/** Runs a statement built by `build` within the scope; each row hydrated as an `entity`. */
export async function scopedEntities<T extends ObjectLiteral>(
  manager: EntityManager,
  scope: TenantScope,
  entity: EntityTarget<T>,
  build: (q: ScopedSqlBuilder) => string,
): Promise<T[]> {
  const meta = metadataOf(manager, entity);
  const rows = await scopedSql(manager, scope, build);
  return rows.map((row) => hydrate<T>(manager, meta, row));
}
