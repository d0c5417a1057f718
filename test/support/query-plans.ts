import type { DataSource, EntityManager } from 'typeorm';
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
