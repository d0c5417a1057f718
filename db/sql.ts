import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * Hand-written statements for the hot paths, built from the entities' metadata so column names,
 * types and conversions stay TypeORM's. TypeORM's query builder costs more CPU per statement than
 * the round trip itself, and cannot put several writes into one statement; these helpers can.
 */

/** Positional parameters of one statement: `p.add(value)` returns its placeholder. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A value written as SQL text instead of a parameter (e.g. an expression over other parameters). */
export class Raw {
  constructor(readonly text: string) {}
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

const metadataCache = new WeakMap<EntityManager['connection'], Map<EntityTarget<ObjectLiteral>, EntityMetadata>>();

export function metadataOf(manager: EntityManager, entity: EntityTarget<ObjectLiteral>): EntityMetadata {
  let byEntity = metadataCache.get(manager.connection);
  if (!byEntity) metadataCache.set(manager.connection, (byEntity = new Map()));
  let meta = byEntity.get(entity);
  if (!meta) byEntity.set(entity, (meta = manager.connection.getMetadata(entity)));
  return meta;
}

export const tableOf = (meta: EntityMetadata) => quote(meta.tableName);

/** The columns TypeORM would select, as `alias.col AS "<prefix>col"` (prefix lets rows of two tables share a result row). */
export function selectList(meta: EntityMetadata, alias: string, prefix = ''): string {
  return meta.columns
    .filter((c) => c.isSelect)
    .map((c) => (prefix ? `${alias}.${quote(c.databaseName)} AS ${quote(prefix + c.databaseName)}` : `${alias}.${quote(c.databaseName)}`))
    .join(', ');
}

/** A raw result row (columns named as in `selectList` with the same prefix) as an entity, with TypeORM's conversions. */
export function hydrate<T>(manager: EntityManager, meta: EntityMetadata, row: Record<string, unknown>, prefix = ''): T {
  const entity = meta.create() as T;
  for (const col of meta.columns) {
    const key = prefix + col.databaseName;
    if (col.isSelect && key in row)
      col.setEntityValue(entity as ObjectLiteral, manager.connection.driver.prepareHydratedValue(row[key], col));
  }
  return entity;
}

function castOf(manager: EntityManager, col: ColumnMetadata): string {
  return `${manager.connection.driver.normalizeType(col)}${col.isArray ? '[]' : ''}`;
}

/**
 * `INSERT INTO table (cols) SELECT $1::type, ... [WHERE condition]`: the properties given, the rest
 * from their database defaults. With `condition` the row is only written when it holds, so a
 * statement of several writes can make them depend on each other. `id` is written when given
 * (ids allocated ahead, see IdBlocks).
 */
export function insertSql(
  manager: EntityManager,
  meta: EntityMetadata,
  values: ObjectLiteral,
  p: Params,
  opts: { where?: string; onConflict?: string } = {},
): string {
  const columns: string[] = [];
  const placeholders: string[] = [];
  let overriding = false;
  for (const col of meta.columns) {
    if (!col.isInsert && !col.isPrimary) continue;
    const value = col.getEntityValue(values);
    if (value === undefined) continue;
    if (col.isGenerated) overriding = true;
    columns.push(quote(col.databaseName));
    placeholders.push(
      value instanceof Raw ? value.text : `${p.add(manager.connection.driver.preparePersistentValue(value, col))}::${castOf(manager, col)}`,
    );
  }
  return (
    `INSERT INTO ${tableOf(meta)} (${columns.join(', ')})${overriding ? ' OVERRIDING SYSTEM VALUE' : ''}` +
    ` SELECT ${placeholders.join(', ')}${opts.where ? ` WHERE ${opts.where}` : ''}${opts.onConflict ? ` ${opts.onConflict}` : ''}`
  );
}

/**
 * Many rows in one `INSERT ... SELECT * FROM unnest($1::type[], ...)`: one parameter per column
 * whatever the number of rows. Every row gives the columns the first one gives.
 */
export function insertManySql(manager: EntityManager, meta: EntityMetadata, rows: ObjectLiteral[], p: Params): string {
  const driver = manager.connection.driver;
  const cols = meta.columns.filter((c) => c.isInsert && !c.isArray && c.getEntityValue(rows[0]) !== undefined);
  const arrays = cols.map(
    (c) => `${p.add(rows.map((r) => driver.preparePersistentValue(c.getEntityValue(r) ?? null, c)))}::${castOf(manager, c)}[]`,
  );
  return `INSERT INTO ${tableOf(meta)} (${cols.map((c) => quote(c.databaseName)).join(', ')}) SELECT * FROM unnest(${arrays.join(', ')})`;
}

/** Runs one statement and hydrates its rows. */
export async function queryEntities<T>(manager: EntityManager, meta: EntityMetadata, sql: string, p: Params | unknown[]): Promise<T[]> {
  const rows = await queryRows(manager, sql, p);
  return rows.map((row) => hydrate<T>(manager, meta, row));
}

/** Rows of one statement, whatever its command (TypeORM shapes UPDATE results differently otherwise). */
export async function queryRows(manager: EntityManager, sql: string, p: Params | unknown[]): Promise<Record<string, unknown>[]> {
  // What EntityManager.query does, asking for the structured result.
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = (await runner.query(sql, Array.isArray(p) ? p : p.values, true)) as { records?: Record<string, unknown>[] };
    return result.records ?? [];
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}
