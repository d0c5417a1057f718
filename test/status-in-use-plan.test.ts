import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import type { ScopedSqlBuilder } from '../db/scoped-sql';
import { analyzedPlan, genericPlan, withLargeTable } from './support/query-plans';
import { usesCountSql } from '../domain/status-definitions';

/**
 * Deleting a lead status or an opportunity stage (or changing what its records depend on) first
 * counts the records that use it (domain/status-definitions.ts, usesCountSql). Without an index on
 * the status or stage that meant reading every lead or deal of the tenant, millions on a large
 * one, to find that none uses it. The statement must read the index both as a prepared
 * statement's generic plan (it is one: every hand-written statement is prepared, db/sql.ts) and
 * for a definition that no record uses while others are common, which is what a delete usually meets.
 */
let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 1 });
});
afterAll(() => db.destroy());

const scope = { tenantId: '1', environment: 'live' as const };

describe("the in-use check of a lead status's delete", () => {
  const statusOf = (q: ScopedSqlBuilder) => usesCountSql(q, { entityType: 'lead', code: 'archived', id: '1' });
  // One tenant's leads in the seeded statuses, most of them new; another tenant's beside them.
  const leads = `INSERT INTO leads (id, tenant_id, environment, email, email_normalized, first_name, last_name, status, created_at)
    OVERRIDING SYSTEM VALUE SELECT g, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END, 'live', 'l' || g || '@x.io', 'l' || g || '@x.io', 'L', 'L',
      (ARRAY['new', 'new', 'new', 'contacted', 'qualified', 'unqualified'])[1 + g % 6], now() - g * interval '1 minute'`;

  it('reads the status index in the generic plan of its prepared statement, on a large never-analyzed table', async () => {
    const plan = await withLargeTable(db, 'leads', leads, genericPlan(scope, statusOf));
    expect(plan).toMatch(/Index Only Scan using \S+ on leads/);
    expect(plan).toMatch(
      /Index Cond: \(\(tenant_id = \$1\) AND \(\(?environment\)?(::text)? = \$2\) AND \(\(?status\)?(::text)? = \$3\)\)/,
    );
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('reads the status index for a status no lead has, where statistics know the common ones', async () => {
    const plan = await withLargeTable(db, 'leads', leads, analyzedPlan(scope, 'leads', statusOf));
    expect(plan).toMatch(/Index Only Scan using \S+ on leads/);
    expect(plan).toMatch(/Index Cond: .*status/);
    expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter/);
  });
});

describe("the in-use check of an opportunity stage's delete", () => {
  // Stage 6, which no deal is in, while deals fill stages 1 to 5.
  const stageOf = (q: ScopedSqlBuilder) => usesCountSql(q, { entityType: 'opportunity', code: 'archived', id: '6' });
  // One tenant's deals in five stages, most of them in the first; another tenant's beside them.
  const deals = `INSERT INTO opportunities (id, tenant_id, environment, name, stage_id, stage, created_at)
    OVERRIDING SYSTEM VALUE SELECT g, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END, 'live', 'D' || g,
      (ARRAY[1, 1, 1, 2, 3, 4, 5])[1 + g % 7], 's', now() - g * interval '1 minute'`;

  it('reads the stage index in the generic plan of its prepared statement, on a large never-analyzed table', async () => {
    const plan = await withLargeTable(db, 'opportunities', deals, genericPlan(scope, stageOf));
    expect(plan).toMatch(/Index Only Scan using \S+ on opportunities/);
    expect(plan).toMatch(/Index Cond: \(\(tenant_id = \$1\) AND \(\(?environment\)?(::text)? = \$2\) AND \(stage_id = \$3\)\)/);
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('reads the stage index for a stage no deal is in, where statistics know the common ones', async () => {
    const plan = await withLargeTable(db, 'opportunities', deals, analyzedPlan(scope, 'opportunities', stageOf));
    expect(plan).toMatch(/Index Only Scan using \S+ on opportunities/);
    expect(plan).toMatch(/Index Cond: .*stage_id/);
    expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter/);
  });
});
