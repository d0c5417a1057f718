import type { DataSource, EntityManager } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { ScopedSqlBuilder } from '../db/scoped-sql';
import { usesCountSql } from '../domain/status-definitions';

/**
 * Deleting a lead status (or giving it another code) first counts the leads that have it
 * (domain/status-definitions.ts, usesCountSql). Without an index on the status that meant reading
 * every lead of the tenant, millions on a large one, to find that none has it. The statement must
 * read `ix_leads_scope_status` both as a prepared statement's generic plan (it is one: every
 * hand-written statement is prepared, db/sql.ts) and for a status that no lead has while others
 * are common, which is what a delete usually meets.
 */
let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 1 });
});
afterAll(() => db.destroy());

const scope = { tenantId: '1', environment: 'live' as const };
const statusOf = (q: ScopedSqlBuilder) => usesCountSql(q, { entityType: 'lead', code: 'archived', id: '1' });

/** Runs `explain` over a temporary `leads` that shadows the real one in this transaction: same columns and indexes, 30,000 rows. */
function withLargeLeads(explain: (m: EntityManager) => Promise<string>): Promise<string> {
  return db.transaction(async (m) => {
    await m.query('CREATE TEMP TABLE leads (LIKE public.leads INCLUDING ALL) ON COMMIT DROP');
    // One tenant's leads in the seeded statuses, most of them new; another tenant's beside them.
    await m.query(
      `INSERT INTO leads (id, tenant_id, environment, email, email_normalized, first_name, last_name, status, created_at)
       OVERRIDING SYSTEM VALUE SELECT g, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END, 'live', 'l' || g || '@x.io', 'l' || g || '@x.io', 'L', 'L',
         (ARRAY['new', 'new', 'new', 'contacted', 'qualified', 'unqualified'])[1 + g % 6], now() - g * interval '1 minute'
       FROM generate_series(1, 30000) g`,
    );
    return explain(m);
  });
}

const planText = (rows: { 'QUERY PLAN': string }[]) => rows.map((r) => r['QUERY PLAN']).join('\n');

describe("the in-use check of a lead status's delete", () => {
  it('reads the status index in the generic plan of its prepared statement, on a large never-analyzed table', async () => {
    const plan = await withLargeLeads(async (m) => {
      const q = new ScopedSqlBuilder(m, scope);
      return planText(await m.query(`EXPLAIN (GENERIC_PLAN) ${statusOf(q)}`));
    });
    expect(plan).toMatch(/Index Only Scan using \S+ on leads/);
    expect(plan).toMatch(
      /Index Cond: \(\(tenant_id = \$1\) AND \(\(?environment\)?(::text)? = \$2\) AND \(\(?status\)?(::text)? = \$3\)\)/,
    );
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('reads the status index for a status no lead has, where statistics know the common ones', async () => {
    const plan = await withLargeLeads(async (m) => {
      await m.query('ANALYZE leads');
      const q = new ScopedSqlBuilder(m, scope);
      const text = statusOf(q);
      return planText(await m.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${text}`, q.params.values));
    });
    expect(plan).toMatch(/Index Only Scan using \S+ on leads/);
    expect(plan).toMatch(/Index Cond: .*status/);
    expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter/);
  });
});
