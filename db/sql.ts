import { QueryFailedError, type EntityManager, type EntityMetadata, type EntityTarget, type ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/**
 * Hand-written statements for the hot paths, built from the entities' metadata so column names,
 * types and conversions stay TypeORM's. TypeORM's query builder costs more CPU per statement than
 * the round trip itself, and cannot put several writes into one statement; these helpers can.
 */

/** Positional parameters of one statement: `p.add(value)` returns its placeholder (an array goes as arrayParam writes it). */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(Array.isArray(value) ? arrayParam(value) : value);
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

/**
 * A cache of what is worked out once per entity and key (statement texts, plans): the hot paths
 * ask for the same ones on every request.
 */
export function perEntity<K, V>(): (meta: EntityMetadata, key: K, build: () => V) => V {
  const cache = new WeakMap<EntityMetadata, Map<K, V>>();
  return (meta, key, build) => {
    let byKey = cache.get(meta);
    if (!byKey) cache.set(meta, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) byKey.set(key, (value = build()));
    return value;
  };
}

const selectLists = perEntity<string, string>();

/**
 * The columns TypeORM would select, as `alias.col AS "<prefix>col"` (prefix lets rows of two tables
 * share a result row), or only those of the properties `only` names. Built once per entity, alias,
 * prefix and list: the hot statements name the same ones on every request.
 */
export function selectList(meta: EntityMetadata, alias: string, prefix = '', only?: readonly string[]): string {
  const key = only ? `${alias} ${prefix} ${only.join(',')}` : `${alias} ${prefix}`;
  return selectLists(meta, key, () => {
    const unknown = only?.filter((property) => !meta.findColumnWithPropertyName(property));
    if (unknown?.length) throw new Error(`selectList: ${unknown.join(', ')} not columns of ${meta.tableName}`);
    return meta.columns
      .filter((c) => c.isSelect && (!only || only.includes(c.propertyName)))
      .map((c) => (prefix ? `${alias}.${quote(c.databaseName)} AS ${quote(prefix + c.databaseName)}` : `${alias}.${quote(c.databaseName)}`))
      .join(', ');
  });
}

/** How each selected column of a row becomes an entity property: copied when the driver would return it as it is. */
type HydrationPlan = { key: string; col: ColumnMetadata; copy: boolean }[];
const hydrationPlans = perEntity<string, HydrationPlan>();

const hydrationPlan = (meta: EntityMetadata, prefix: string): HydrationPlan =>
  hydrationPlans(meta, prefix, () =>
    meta.columns.filter((col) => col.isSelect).map((col) => ({ key: prefix + col.databaseName, col, copy: plainColumn(col) })),
  );

/** A raw result row (columns named as in `selectList` with the same prefix) as an entity, with TypeORM's conversions. */
export function hydrate<T>(manager: EntityManager, meta: EntityMetadata, row: Record<string, unknown>, prefix = ''): T {
  const entity = meta.create() as ObjectLiteral;
  for (const { key, col, copy } of hydrationPlan(meta, prefix)) {
    if (!(key in row)) continue;
    if (copy) entity[col.propertyName] = row[key];
    else col.setEntityValue(entity, manager.connection.driver.prepareHydratedValue(row[key], col));
  }
  return entity as T;
}

const casts = new WeakMap<ColumnMetadata, string>();

// Character types are cast as text: `::character` alone means char(1) and would truncate; the
// column's own length is then enforced on assignment (too long is an error, not a cut).
function castOf(manager: EntityManager, col: ColumnMetadata): string {
  let cast = casts.get(col);
  if (cast === undefined) {
    const type = manager.connection.driver.normalizeType(col);
    casts.set(col, (cast = `${type === 'character' || type === 'character varying' ? 'text' : type}${col.isArray ? '[]' : ''}`));
  }
  return cast;
}

/** A column an INSERT may write, with how a row's value is read and written worked out once per entity. */
export interface WriteColumn {
  col: ColumnMetadata;
  property: string;
  quoted: string;
  own: boolean;
  /** Read as a property and sent as it is (plainColumn). */
  plain: boolean;
}
/** insertSql's columns (an ID given ahead included) and a multi-row insert's. */
interface WritePlan {
  single: WriteColumn[];
  many: WriteColumn[];
}
const writePlans = new WeakMap<EntityMetadata, WritePlan>();

function writePlanOf(meta: EntityMetadata): WritePlan {
  let plan = writePlans.get(meta);
  if (!plan) {
    const columns = meta.columns.map((col) => ({
      col,
      property: col.propertyName,
      quoted: quote(col.databaseName),
      own: ownColumn(col),
      plain: plainColumn(col),
    }));
    plan = { single: columns.filter((c) => c.col.isInsert || c.col.isPrimary), many: columns.filter((c) => c.col.isInsert) };
    writePlans.set(meta, plan);
  }
  return plan;
}

/**
 * `INSERT INTO table (cols) SELECT $1::type, ... [WHERE condition]`: the properties given, the rest
 * from their database defaults. With `condition` the row is only written when it holds, so a
 * statement of several writes can make them depend on each other. `id` is written when given
 * (ids allocated ahead, see IdBlocks). `overrides` (the scope's tenant and environment) win over
 * `values`: read beside them instead of copied into a new object, which cost a lead create more
 * than the rest of this function.
 */
export function insertSql(
  manager: EntityManager,
  meta: EntityMetadata,
  values: ObjectLiteral,
  p: Params,
  opts: { where?: string; onConflict?: string } = {},
  overrides?: ObjectLiteral,
): string {
  let columns = '';
  let placeholders = '';
  let overriding = false;
  for (const { col, property, quoted, own } of writePlanOf(meta).single) {
    const value =
      overrides && Object.hasOwn(overrides, property) ? overrides[property] : own ? values[property] : col.getEntityValue(values);
    if (value === undefined) continue;
    if (col.isGenerated) overriding = true;
    const placeholder = value instanceof Raw ? value.text : `${p.add(persistentValue(manager, col, value))}::${castOf(manager, col)}`;
    columns = columns ? `${columns}, ${quoted}` : quoted;
    placeholders = placeholders ? `${placeholders}, ${placeholder}` : placeholder;
  }
  return (
    `INSERT INTO ${tableOf(meta)} (${columns})${overriding ? ' OVERRIDING SYSTEM VALUE' : ''}` +
    ` SELECT ${placeholders}${opts.where ? ` WHERE ${opts.where}` : ''}${opts.onConflict ? ` ${opts.onConflict}` : ''}`
  );
}

const read = (c: WriteColumn, row: ObjectLiteral): unknown => (c.own ? row[c.property] : c.col.getEntityValue(row));

/** updateSql's statement for one entity and scope shape, and the columns whose values it takes after the scope's. */
export interface UpdatePlan {
  sql: string;
  columns: WriteColumn[];
  /** The update-date column the statement returns (TypeORM's `@UpdateDateColumn`), if the entity has one. */
  stamp?: ColumnMetadata;
}
const updatePlans = perEntity<boolean, UpdatePlan>();

const TIMESTAMPS = new Set(['timestamp with time zone', 'timestamp without time zone']);

/**
 * `UPDATE table t SET <every updatable column> ... WHERE id = $1 AND tenant_id + 0 = $2 [AND
 * environment = $3] RETURNING <update date>` (`+ 0` as in selectByIdSql, for the same reason):
 * a whole entity written without reading its row first,
 * which is what TypeORM's save does to find the columns that changed. The row ends the same: save
 * writes every column that differs, and writing an equal value changes nothing. Two things are
 * kept as save keeps them, by comparing in SQL: the update date moves only when a value changed, and
 * a timestamp the entity holds to the millisecond (JavaScript's precision) keeps its stored
 * microseconds when it is that value. Scope and creation columns are never written.
 */
export function updateSql(manager: EntityManager, meta: EntityMetadata, partitioned: boolean): UpdatePlan {
  return updatePlans(meta, partitioned, () => buildUpdate(manager, meta, partitioned));
}

function buildUpdate(manager: EntityManager, meta: EntityMetadata, partitioned: boolean): UpdatePlan {
  const columns = writePlanOf(meta).single.filter(
    ({ col, property }) =>
      col.isUpdate &&
      !col.isPrimary &&
      !col.isGenerated &&
      !col.isVirtual &&
      !col.isCreateDate &&
      !col.isUpdateDate &&
      !col.isVersion &&
      property !== 'tenantId' &&
      property !== 'environment',
  );
  const first = partitioned ? 4 : 3;
  const sets: string[] = [];
  const stored: string[] = [];
  const given: string[] = [];
  columns.forEach(({ col, quoted }, i) => {
    const param = `$${first + i}::${castOf(manager, col)}`;
    const type = manager.connection.driver.normalizeType(col);
    // char(n) compares as bpchar, which ignores the padding TypeORM reads back.
    const compared = type === 'character' ? `$${first + i}::text::bpchar` : param;
    if (TIMESTAMPS.has(type)) {
      const held = `date_trunc('milliseconds', t.${quoted})`;
      sets.push(`${quoted} = CASE WHEN ${held} IS NOT DISTINCT FROM ${param} THEN t.${quoted} ELSE ${param} END`);
      stored.push(held);
    } else {
      sets.push(`${quoted} = ${param}`);
      stored.push(`t.${quoted}`);
    }
    given.push(compared);
  });
  const stamp = meta.updateDateColumn;
  if (stamp) {
    const q = quote(stamp.databaseName);
    sets.push(`${q} = CASE WHEN ROW(${stored.join(', ')}) IS DISTINCT FROM ROW(${given.join(', ')}) THEN now() ELSE t.${q} END`);
  }
  const sql =
    `UPDATE ${tableOf(meta)} t SET ${sets.join(', ')}` +
    ` WHERE t.id = $1 AND t.tenant_id + 0 = $2${partitioned ? ' AND t.environment = $3' : ''}` +
    ` RETURNING t.${stamp ? quote(stamp.databaseName) : 'id'}`;
  return { sql, columns, stamp };
}

/** A column's value in an entity, converted as the driver sends it (updateSql's parameters). */
export function writeValue(manager: EntityManager, c: WriteColumn, entity: ObjectLiteral): unknown {
  const value = read(c, entity);
  return value === undefined || c.plain ? value : persistentValue(manager, c.col, value);
}

/** The write columns the first row gives, when every row gives the same ones; see insertManyColumns. */
function givenManyColumns(meta: EntityMetadata, rows: ObjectLiteral[]): WriteColumn[] | null {
  const insertable = writePlanOf(meta).many;
  const given = insertable.filter((c) => read(c, rows[0]) !== undefined);
  if (given.some((c) => c.col.isArray)) return null;
  for (let r = 1; r < rows.length; r++) {
    let count = 0;
    for (const c of insertable) {
      if (read(c, rows[r]) === undefined) continue;
      if (given[count] !== c) return null;
      count++;
    }
    if (count !== given.length) return null;
  }
  return given;
}

/**
 * The columns of a multi-row insert: the ones the first row gives, when every row gives the same
 * ones (a column one row leaves to its default cannot be a parameter in another). Null when the
 * rows differ or a column is an array (unnest would flatten it). A column of the row's own (not in
 * an embedded object, not a relation) is read as a property: TypeORM's getEntityValue walks
 * embeddings and relations first, which cost a batch create of 100 leads several thousand calls
 * and about 4 % of the API's CPU.
 */
export function insertManyColumns(meta: EntityMetadata, rows: ObjectLiteral[]): ColumnMetadata[] | null {
  return givenManyColumns(meta, rows)?.map((c) => c.col) ?? null;
}

/** A column held as a property of the entity itself: not in an embedded object, not a relation. */
function ownColumn(col: ColumnMetadata): boolean {
  return !col.embeddedMetadata && !col.relationMetadata && !col.referencedColumn;
}

/** A column of the entity's own whose values the driver reads and writes as they are. */
function plainColumn(col: ColumnMetadata): boolean {
  return ownColumn(col) && !col.transformer && UNCHANGED_TYPES.has(col.type);
}

/**
 * Column types (as declared, not normalised: `simple-array` normalises to text but is converted)
 * whose values the PostgreSQL driver's preparePersistentValue returns as they are.
 */
const UNCHANGED_TYPES = new Set<ColumnMetadata['type']>([
  String,
  Number,
  'varchar',
  'character varying',
  'text',
  'int',
  'int2',
  'int4',
  'int8',
  'integer',
  'smallint',
  'bigint',
  'uuid',
]);

/**
 * A column's value as the driver sends it: the driver's conversion only where it converts, and
 * JSON written as the driver writes it without the driver's dispatch (which builds a list of type
 * names on every call to look the type up: 2.4 % of the API's CPU in a batch create).
 */
function persistentValue(manager: EntityManager, col: ColumnMetadata, value: unknown): unknown {
  if (col.transformer) return manager.connection.driver.preparePersistentValue(value, col);
  if (UNCHANGED_TYPES.has(col.type)) return value;
  if (col.type === 'jsonb' || col.type === 'json') return value === null || value === undefined ? value : JSON.stringify(value);
  return manager.connection.driver.preparePersistentValue(value, col);
}

const NEEDS_ESCAPE = /[\\"]/;
/**
 * In JSON text, an escape other than \\ and \": a backslash before any other character. Text with a
 * backslash of its own before a letter matches too and takes arrayParam's loop: slower, still right.
 */
const OTHER_ESCAPE = /\\[^"\\]/;

/**
 * A column's values as one array parameter: PostgreSQL's array literal, the text pg would write,
 * when they are strings, numbers and nulls; otherwise the array, for pg to convert. pg escapes each
 * element with two regular-expression replaces whether it needs them or not (about 5 % of the API's
 * CPU in a batch create); most values need neither.
 */
export function arrayParam(values: unknown[]): unknown {
  if (values.every((v) => typeof v === 'string')) {
    // Strings only: JSON escapes quotes and backslashes as an array literal does, so its text is
    // the literal, unless it escaped something else (a control character), which the loop handles.
    const json = JSON.stringify(values);
    if (!OTHER_ESCAPE.test(json)) return `{${json.slice(1, -1)}}`;
  }
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) literal += ',';
    if (v === null || v === undefined) literal += 'NULL';
    else if (typeof v === 'string') literal += NEEDS_ESCAPE.test(v) ? `"${v.replace(/[\\"]/g, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number') literal += `"${v}"`;
    else return values;
  }
  return `${literal}}`;
}

/** See insertManySql. */
export interface InsertManyOptions {
  where?: string;
  keys?: Record<string, { values: unknown[]; type: string }>;
}

/**
 * Many rows in one `INSERT ... SELECT u.* FROM unnest($1::type[], ...) AS u(...)`: one parameter
 * per column whatever the number of rows, so one prepared statement serves every batch size.
 * `computed` columns are SQL expressions instead, evaluated per row over the row's given columns
 * as `u.<column>` (a value that depends on the statement's other parts, or one value for every
 * row); a computed column's value in the rows is ignored. With `where`, only the rows for which it
 * holds are written (it may read `u.<column>` too). `keys` go with the rows without being written,
 * one value per row, for `where` to read as `u.<key>` (the row's own event, say, to write it only
 * with that event).
 */
export function insertManySql(
  manager: EntityManager,
  meta: EntityMetadata,
  rows: ObjectLiteral[],
  p: Params,
  computed: Record<string, string> = {},
  opts: InsertManyOptions = {},
): string {
  const given = givenManyColumns(meta, rows)?.filter((c) => !Object.hasOwn(computed, c.property));
  if (!given) throw new Error(`insertManySql: rows of ${meta.tableName} must give the same non-array columns`);
  const cols = given.map((c) => c.col);
  const arrays = given.map((c) => {
    const values = c.plain ? rows.map((r) => r[c.property]) : rows.map((r) => persistentValue(manager, c.col, read(c, r)));
    return `${p.add(values)}::${castOf(manager, c.col)}[]`;
  });
  const extra = Object.entries(computed).map(([property, sql]) => {
    const col = meta.findColumnWithPropertyName(property);
    if (!col) throw new Error(`insertManySql: ${property} is not a column of ${meta.tableName}`);
    return { name: quote(col.databaseName), sql };
  });
  // As in insertSql: IDs reserved ahead (nextId) go into an identity column only with OVERRIDING.
  const overriding = cols.some((c) => c.isGenerated) ? ' OVERRIDING SYSTEM VALUE' : '';
  const names = [...cols.map((c) => quote(c.databaseName)), ...extra.map((e) => e.name)];
  const keys = Object.entries(opts.keys ?? {});
  const keyArrays = keys.map(([, k]) => `${p.add(k.values)}::${k.type}[]`);
  // The rows are `u`, for computed columns and the condition to read (`u.type`).
  const unnested = `unnest(${[...arrays, ...keyArrays].join(', ')}) AS u(${[...cols.map((c) => quote(c.databaseName)), ...keys.map(([name]) => quote(name))].join(', ')})`;
  const written = keys.length ? cols.map((c) => `u.${quote(c.databaseName)}`).join(', ') : 'u.*';
  const source = `SELECT ${written}${extra.map((e) => `, ${e.sql}`).join('')} FROM ${unnested}`;
  return `INSERT INTO ${tableOf(meta)} (${names.join(', ')})${overriding} ${source}${opts.where ? ` WHERE ${opts.where}` : ''}`;
}

/** Runs one statement and hydrates its rows. */
export async function queryEntities<T>(manager: EntityManager, meta: EntityMetadata, sql: string, p: Params | unknown[]): Promise<T[]> {
  const rows = await queryRows(manager, sql, p);
  return rows.map((row) => hydrate<T>(manager, meta, row));
}

const statementNames = new Map<string, string>();

/**
 * The server-side prepared statement name for a statement text: the helpers' statements have one
 * text per shape, so each connection parses and plans each shape once (a multi-write statement's
 * planning costs PostgreSQL more than its execution). Bounded, in case a caller builds unbounded
 * variants; those then run unnamed.
 */
function statementName(sql: string): string | undefined {
  let name = statementNames.get(sql);
  if (!name && statementNames.size < 500) statementNames.set(sql, (name = `h${statementNames.size}`));
  return name;
}

type PgQueryable = { query(q: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Record<string, unknown>[] }> };

/**
 * Rows of one statement, as a named prepared statement on the manager's connection (its
 * transaction's, if any). Outside a transaction it goes to the driver's pg pool directly, as a
 * bare `pool.query` does: a TypeORM query runner per statement (created, connected, released)
 * cost about 3 % of the API's CPU on a read by ID.
 */
export async function queryRows(manager: EntityManager, sql: string, p: Params | unknown[]): Promise<Record<string, unknown>[]> {
  const values = Array.isArray(p) ? p : p.values;
  const runner = manager.queryRunner;
  const client = runner
    ? ((await runner.connect()) as PgQueryable)
    : (manager.connection.driver as unknown as { master: PgQueryable }).master;
  try {
    return (await client.query({ name: statementName(sql), text: sql, values })).rows;
  } catch (err) {
    throw new QueryFailedError(sql, values, err as Error); // what TypeORM's own queries throw
  }
}
