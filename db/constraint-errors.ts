import type { DataSource, EntityMetadata } from 'typeorm';

/** A PostgreSQL error as TypeORM's QueryFailedError carries it (the driver error's fields are copied onto it). */
interface PgError {
  code?: string;
  table?: string;
  detail?: string;
  message?: string;
  query?: string;
}

export interface ConstraintViolation {
  kind: 'too_long' | 'duplicate';
  /** The API field the column holds (a derived column such as `email_normalized` names its source, `email`). */
  field: string | null;
  /** For `too_long`: the column's length. */
  maxLength?: number;
}

const SCOPE_COLUMNS = new Set(['tenant_id', 'environment']);

/**
 * Which request field a value-too-long (22001) or unique (23505) error is about. The schemas
 * should refuse such input before it reaches the database; this is the net below them, so a
 * column the schema forgot answers 422 or 409 naming the field instead of a 500.
 */
export function constraintViolationOf(err: unknown, db: DataSource | undefined, body?: unknown): ConstraintViolation | null {
  const e = err as PgError;
  if (e?.code === '22001') {
    const maxLength = Number(/character varying\((\d+)\)/.exec(e.message ?? '')?.[1]) || undefined;
    return { kind: 'too_long', field: tooLongField(e.query ?? '', maxLength, db, body), maxLength };
  }
  if (e?.code === '23505') {
    const names =
      /^Key \(([^)]*)\)=/
        .exec(e.detail ?? '')?.[1]
        .split(',')
        .map((n) => n.trim()) ?? [];
    const meta = tableMetadata(db, e.table);
    // The key's last column is its most specific one (`code` in tenant, environment, type, code).
    const column = names.filter((n) => !SCOPE_COLUMNS.has(n)).at(-1);
    const property = column && (meta?.columns.find((c) => c.databaseName === column)?.propertyName ?? column);
    return { kind: 'duplicate', field: property ? apiField(property) : null };
  }
  return null;
}

/**
 * PostgreSQL does not say which column was too long, only its type: the candidates are the
 * columns of that length in the tables the statement writes, narrowed, when several, to the
 * request's fields whose value is longer than that.
 */
function tooLongField(query: string, maxLength: number | undefined, db: DataSource | undefined, body: unknown): string | null {
  if (maxLength === undefined) return null;
  const tables = [...query.matchAll(/(?:INSERT\s+INTO|UPDATE)\s+"?([A-Za-z0-9_]+)"?/gi)].map((m) => m[1]);
  const columns = tables.flatMap((t) => tableMetadata(db, t)?.columns.filter((c) => Number(c.length) === maxLength) ?? []);
  const fields = [...new Set(columns.map((c) => apiField(c.propertyName)))];
  if (fields.length <= 1) return fields[0] ?? null;
  const values = (body ?? {}) as Record<string, unknown>;
  const overLong = fields.filter((f) => typeof values[f] === 'string' && (values[f] as string).length > maxLength);
  return overLong.length === 1 ? overLong[0] : null;
}

function tableMetadata(db: DataSource | undefined, table: string | undefined): EntityMetadata | undefined {
  if (!db || !table) return undefined;
  return db.entityMetadatas.find((m) => m.tableName === table);
}

/** `emailNormalized` holds what the caller sent as `email`. */
const apiField = (property: string) => property.replace(/Normalized$/, '');
