import type { DataSource, EntityManager, Logger } from 'typeorm';
import type { TenantScope } from '../../db/scoped-repository';
import { ScopedSqlBuilder } from '../../db/scoped-sql';

/**
 * Runs `explain` over a temporary `table` that shadows the real one in this transaction: same
 * columns and indexes, the 30,000 rows `fill` inserts from `generate_series(1, 30000) g`.
 */
export function withLargeTable(
  db: DataSource,
  table: string,
  fill: string,
  explain: (m: EntityManager) => Promise<string>,
): Promise<string> {
  return db.transaction(async (m) => {
    await m.query(`CREATE TEMP TABLE ${table} (LIKE public.${table} INCLUDING ALL) ON COMMIT DROP`);
    await m.query(`${fill} FROM generate_series(1, 30000) g`);
    return explain(m);
  });
}

const planText = (rows: { 'QUERY PLAN': string }[]) => rows.map((r) => r['QUERY PLAN']).join('\n');

/** The generic plan of the prepared statement `sql` (every hand-written statement is one, db/sql.ts). */
export const genericPlanOf = (sql: string) => async (m: EntityManager) => planText(await m.query(`EXPLAIN (GENERIC_PLAN) ${sql}`));

/** The generic plan of the prepared statement `sql` builds. */
export const genericPlan = (scope: TenantScope, sql: (q: ScopedSqlBuilder) => string) => (m: EntityManager) =>
  genericPlanOf(sql(new ScopedSqlBuilder(m, scope)))(m);

/** The plan `sql` runs with `values`, once the table is analyzed. */
export const analyzedPlanOf = (table: string, sql: string, values: unknown[]) => async (m: EntityManager) => {
  await m.query(`ANALYZE ${table}`);
  return planText(await m.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`, values));
};

/** The plan the scoped statement `sql` builds runs with, its values given, once the table is analyzed. */
export const analyzedPlan = (scope: TenantScope, table: string, sql: (q: ScopedSqlBuilder) => string) => (m: EntityManager) => {
  const q = new ScopedSqlBuilder(m, scope);
  const text = sql(q);
  return analyzedPlanOf(table, text, q.params.values)(m);
};

/** A statement `run` sent, with its values. */
export interface SentStatement {
  sql: string;
  values: unknown[];
}

/**
 * The first statement `run` sends through `db` that `matches`: the statement a domain function
 * builds, to explain over a large table. TypeORM hands each of its queries to the data source's
 * logger; a hand-written statement (db/sql.ts) does not pass it, so such a function exports its SQL.
 */
export async function statementOf(db: DataSource, run: () => Promise<unknown>, matches: (sql: string) => boolean): Promise<SentStatement> {
  const seen: SentStatement[] = [];
  const logger = db.logger;
  // The logger's other methods (slow queries, errors) stay its own.
  const recording: Logger = Object.assign(Object.create(logger) as Logger, {
    logQuery: (sql: string, values?: unknown) => void seen.push({ sql, values: Array.isArray(values) ? values : [] }),
  });
  Object.assign(db, { logger: recording });
  try {
    await run();
  } finally {
    Object.assign(db, { logger });
  }
  const found = seen.find((s) => matches(s.sql));
  if (!found) throw new Error(`No statement matched among those sent:\n${seen.map((s) => s.sql).join('\n')}`);
  return found;
}
