import type {
  DeepPartial,
  EntityManager,
  EntityMetadata,
  EntityTarget,
  FindManyOptions,
  FindOptionsWhere,
  ObjectLiteral,
  Repository,
} from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { Environment } from './entities/tenant-owned';
import { ScopedQuery } from './scoped-query';
import { notFound } from '../lib/errors';
import { readById } from './grouped-reads';
import {
  hydrate,
  insertManyColumns,
  insertSql,
  insertManySql,
  Params,
  queryEntities,
  queryRows,
  selectList,
  tableOf,
  updateSql,
  writeValue,
} from './sql';

export interface TenantScope {
  tenantId: string;
  environment: Environment;
}

/** Any row owned by a tenant; rows with an `environment` column are also split live/sandbox. */
export interface TenantOwnedRow {
  tenantId: string;
  environment?: Environment;
}

/** A tenant's row with its own `id` (most entities; join rows such as team_members have none). */
export interface TenantRow extends TenantOwnedRow {
  id: string;
}

/**
 * The one data-access path to tenant-owned rows. Every method adds the scope's tenant (and, for
 * partitioned entities, its environment) to the query, so a handler cannot forget it; another
 * tenant's IDs simply find nothing. Tenant-wide entities (users, teams, API keys) have no
 * environment column and are shared by both environments. This base serves every tenant-owned
 * entity, join rows without an `id` included; ScopedRepository adds the by-id methods.
 */
export class ScopedRows<T extends TenantOwnedRow> {
  protected readonly repo: Repository<T>;
  protected readonly partitioned: boolean;

  constructor(
    manager: EntityManager,
    entity: EntityTarget<T>,
    readonly scope: TenantScope,
  ) {
    this.repo = manager.getRepository(entity);
    this.partitioned = !!this.repo.metadata.findColumnWithPropertyName('environment');
  }

  protected scopeColumns(): Partial<TenantOwnedRow> {
    return this.partitioned ? { tenantId: this.scope.tenantId, environment: this.scope.environment } : { tenantId: this.scope.tenantId };
  }

  protected where(where: FindOptionsWhere<T> = {}): FindOptionsWhere<T> {
    return { ...where, ...this.scopeColumns() } as FindOptionsWhere<T>;
  }

  findOne(where: FindOptionsWhere<T>): Promise<T | null> {
    return this.repo.findOne({ where: this.where(where) });
  }

  find(options: Omit<FindManyOptions<T>, 'where'> & { where?: FindOptionsWhere<T> } = {}): Promise<T[]> {
    return this.repo.find({ ...options, where: this.where(options.where) });
  }

  count(where?: FindOptionsWhere<T>): Promise<number> {
    return this.repo.count({ where: this.where(where) });
  }

  /**
   * A select over the scope's rows under `alias`; conditions compose with the scope, which is
   * applied last (see ScopedQuery), so no later `where` can remove it.
   */
  select(alias: string): ScopedQuery<T> {
    return new ScopedQuery(this.repo.createQueryBuilder(alias), (qb) => {
      qb.andWhere(`${alias}.tenant_id = :scopeTenantId`, { scopeTenantId: this.scope.tenantId });
      return this.partitioned ? qb.andWhere(`${alias}.environment = :scopeEnvironment`, { scopeEnvironment: this.scope.environment }) : qb;
    });
  }

  // A single INSERT ... RETURNING is atomic on its own: no BEGIN/COMMIT around it outside a transaction.
  async insert(data: DeepPartial<T>): Promise<T> {
    const { manager, metadata } = this.repo;
    const p = new Params();
    const [row] = await queryEntities<T>(
      manager,
      metadata,
      `${insertSql(manager, metadata, data, p, {}, this.scopeColumns())} RETURNING *`,
      p,
    );
    return row;
  }

  /** Many rows in one INSERT statement (a prepared unnest insert when the rows give the same columns). */
  async insertMany(rows: DeepPartial<T>[]): Promise<T[]> {
    if (rows.length === 0) return [];
    const scopedRows = rows.map((data) => ({ ...data, ...this.scopeColumns() }));
    const inserted = await this.insertUniform(scopedRows, 'RETURNING *');
    if (inserted) return inserted;
    const entities = scopedRows.map((data) => this.repo.create(data as DeepPartial<T>));
    return this.repo.save(entities, { transaction: false, chunk: 1000 });
  }

  /**
   * insertMany for rows whose stored form nobody reads next (a batch's search documents): no
   * RETURNING, so PostgreSQL sends nothing back and nothing is hydrated.
   */
  async insertManyWithoutReturning(rows: DeepPartial<T>[]): Promise<void> {
    if (rows.length === 0) return;
    const { manager, metadata } = this.repo;
    const scopedRows = rows.map((data) => ({ ...data, ...this.scopeColumns() }));
    if (!insertManyColumns(metadata, scopedRows)) {
      await this.repo.insert(scopedRows as QueryDeepPartialEntity<T>[]);
      return;
    }
    const p = new Params();
    await queryRows(manager, insertManySql(manager, metadata, scopedRows, p), p);
  }

  /**
   * Many rows in one INSERT ... ON CONFLICT DO NOTHING: returns the rows that were inserted, so a
   * row that collided with a unique index is simply absent.
   */
  async insertIgnoringConflicts(rows: QueryDeepPartialEntity<T>[]): Promise<T[]> {
    if (rows.length === 0) return [];
    const scopedRows = rows.map((row) => ({ ...row, ...this.scopeColumns() }));
    const inserted = await this.insertUniform(scopedRows, 'ON CONFLICT DO NOTHING RETURNING *');
    if (inserted) return inserted;
    const { manager, metadata } = this.repo;
    const result = await this.repo
      .createQueryBuilder()
      .insert()
      .values(scopedRows as QueryDeepPartialEntity<T>[])
      .orIgnore()
      .returning('*')
      .execute();
    return (result.raw as Record<string, unknown>[]).map((row) => hydrate<T>(manager, metadata, row));
  }

  /** The prepared unnest insert, or null when the rows do not share one shape (the caller falls back to TypeORM). */
  private async insertUniform(rows: ObjectLiteral[], tail: string): Promise<T[] | null> {
    const { manager, metadata } = this.repo;
    if (!insertManyColumns(metadata, rows)) return null;
    const p = new Params();
    return queryEntities<T>(manager, metadata, `${insertManySql(manager, metadata, rows, p)} ${tail}`, p);
  }

  /** Saves changes to an entity loaded through this repository (scope columns cannot move). */
  save(entity: T): Promise<T> {
    Object.assign(entity, this.scopeColumns());
    return this.repo.save(entity);
  }

  /** Bulk update of the scope's rows matching `where`; returns the number of rows changed. */
  async updateWhere(where: FindOptionsWhere<T>, set: QueryDeepPartialEntity<T>): Promise<number> {
    const result = await this.repo.update(this.where(where), set);
    return result.affected ?? 0;
  }

  /** Adds `by` to a numeric column of the scope's rows matching `where` (one UPDATE, no read). */
  async increment(where: FindOptionsWhere<T>, property: keyof T & string, by = 1): Promise<void> {
    await this.repo.increment(this.where(where), property, by);
  }

  /** Bulk delete of the scope's rows matching `where`. */
  async deleteWhere(where: FindOptionsWhere<T>): Promise<number> {
    const result = await this.repo.delete(this.where(where));
    return result.affected ?? 0;
  }
}

/** ScopedRows of an entity with an `id`: the by-id reads and delete. */
export class ScopedRepository<T extends TenantRow> extends ScopedRows<T> {
  constructor(
    manager: EntityManager,
    entity: EntityTarget<T>,
    scope: TenantScope,
    /** Called before a read by ID joins a group (db/grouped-reads.ts). */
    private readonly beforeReadGroupWait?: () => void,
  ) {
    super(manager, entity, scope);
  }

  findById(id: string): Promise<T | null> {
    return this.selectById(id, 'none');
  }

  /**
   * The row locked FOR UPDATE until the transaction ends: read-modify-write updates use it so a
   * concurrent writer waits instead of having its change overwritten. Only inside a transaction.
   */
  findByIdForUpdate(id: string): Promise<T | null> {
    return this.selectById(id, 'update');
  }

  /**
   * The row locked FOR KEY SHARE until the transaction ends, as a foreign key check locks the row it
   * references: a write that will point at the row keeps a delete (which locks it FOR UPDATE) waiting
   * until it commits, so the delete's own check sees the new reference. Only inside a transaction.
   */
  findByIdForKeyShare(id: string): Promise<T | null> {
    return this.selectById(id, 'key share');
  }

  // The most frequent read (every GET /v1/<resource>/:id): a prepared statement instead of the
  // query builder, which costs more CPU than the query.
  private async selectById(id: string, lock: RowLock): Promise<T | null> {
    const { manager, metadata } = this.repo;
    const scope = this.partitioned ? [this.scope.tenantId, this.scope.environment] : [this.scope.tenantId];
    const single = selectByIdSql(metadata, this.partitioned, lock);
    const row =
      lock === 'none' && !manager.queryRunner
        ? await readById({ manager, meta: metadata, partitioned: this.partitioned, scope, id, single }, this.beforeReadGroupWait)
        : (await queryRows(manager, single, [id, ...scope]))[0];
    return row ? hydrate<T>(manager, metadata, row) : null;
  }

  /**
   * Saves changes to an entity read through this repository: one UPDATE of its columns within the
   * scope (updateSql), where TypeORM's save reads the row first, and outside a transaction wraps
   * the two in BEGIN and COMMIT. A new entity (no id yet) or one missing a column (read with a
   * partial select) still goes through TypeORM. A row deleted since it was read is not_found: save
   * would have inserted it again.
   */
  override async save(entity: T): Promise<T> {
    Object.assign(entity, this.scopeColumns());
    const { manager, metadata } = this.repo;
    if (entity.id === undefined) return this.repo.save(entity);
    const plan = updateSql(manager, metadata, this.partitioned);
    const p = new Params();
    p.add(entity.id);
    p.add(this.scope.tenantId);
    if (this.partitioned) p.add(this.scope.environment);
    for (const c of plan.columns) {
      const value = writeValue(manager, c, entity);
      if (value === undefined) return this.repo.save(entity);
      p.add(value);
    }
    const [row] = await queryRows(manager, plan.sql, p);
    if (!row) throw notFound(metadata.targetName);
    if (plan.stamp)
      plan.stamp.setEntityValue(entity, manager.connection.driver.prepareHydratedValue(row[plan.stamp.databaseName], plan.stamp));
    return entity;
  }

  async deleteById(id: string): Promise<boolean> {
    const result = await this.repo.delete(this.where({ id } as FindOptionsWhere<T>));
    return (result.affected ?? 0) > 0;
  }
}

const byIdStatements = new WeakMap<EntityMetadata, Record<RowLock, string>>();
const ROW_LOCKS = ['none', 'update', 'key share'] as const;
export type RowLock = (typeof ROW_LOCKS)[number];

/**
 * `tenant_id + 0` keeps the scope check in SQL but out of index selection: these statements are
 * prepared, and once PostgreSQL caches a generic plan for one, a table that grew faster than its
 * statistics (a new tenant's first import) could get a plan that walks a `(tenant_id, ...)` index
 * and filters on id, reading every row of the tenant per lookup (23 ms at 60,000 leads instead of
 * 0.03 ms). The primary key is then the only usable index, the right one at any size.
 */
export function selectByIdSql(meta: EntityMetadata, partitioned: boolean, lock: RowLock): string {
  let texts = byIdStatements.get(meta);
  if (!texts) {
    const base = `SELECT ${selectList(meta, 't')} FROM ${tableOf(meta)} t WHERE t.id = $1 AND t.tenant_id + 0 = $2${partitioned ? ' AND t.environment = $3' : ''}`;
    texts = Object.fromEntries(ROW_LOCKS.map((l) => [l, l === 'none' ? base : `${base} FOR ${l.toUpperCase()}`])) as Record<
      RowLock,
      string
    >;
    byIdStatements.set(meta, texts);
  }
  return texts[lock];
}

export function scoped<T extends TenantRow>(manager: EntityManager, entity: EntityTarget<T>, scope: TenantScope): ScopedRepository<T> {
  return new ScopedRepository(manager, entity, scope);
}
