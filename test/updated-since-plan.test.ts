import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { createDomainContext } from '../domain/context';
import { listLeads, type LeadFilters } from '../domain/leads/leads';
import { usesCountSql } from '../domain/status-definitions';
import { analyzedPlanOf, genericPlan, genericPlanOf, statementOf, withLargeTable, type SentStatement } from './support/query-plans';

/**
 * An integration syncs leads by polling what changed since its last poll
 * (`GET /v1/leads?updatedFrom=...&sort=updatedAt:asc`). Without an index by updatedAt each poll read
 * every lead of the scope. The index (ix_leads_scope_updated) is partial, so that it cannot take
 * the status index's place in a status delete's in-use check, which test/status-in-use-plan.test.ts
 * holds: this file holds the polls to it, as the list builds them.
 */
let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
});
afterAll(() => db.destroy());

const scope = { tenantId: '1', environment: 'live' as const };

/** The statement and values of the page of leads that listLeads reads for `filters`. */
function listStatement(filters: Partial<LeadFilters>): Promise<SentStatement> {
  const ctx = createDomainContext({ db, scope, actorUserId: '1', workflows: undefined as never });
  const list = () => listLeads(ctx, { page: 1, limit: 50, sort: { field: 'createdAt', direction: 'DESC' }, ...filters });
  return statementOf(db, list, (sql) => /ORDER BY/.test(sql) && /FROM "leads"/.test(sql));
}

// One tenant's leads, created over 30,000 minutes, one in seven of them changed within the last
// 1,000 and the others never; another tenant's beside them.
const leads = `INSERT INTO leads (id, tenant_id, environment, email, email_normalized, first_name, last_name, status, created_at, updated_at)
  OVERRIDING SYSTEM VALUE SELECT g, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END, 'live', 'l' || g || '@x.io', 'l' || g || '@x.io', 'L', 'L',
    (ARRAY['new', 'new', 'new', 'contacted', 'qualified', 'unqualified'])[1 + g % 6],
    now() - g * interval '1 minute',
    CASE WHEN g % 7 = 0 THEN now() - (g % 997) * interval '1 minute' ELSE now() - g * interval '1 minute' END`;

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
/** Read in updatedAt's order from its index, the ID's order within a time sorted (Incremental Sort) as it goes. */
const byUpdatedIndex = /Index Scan using \S+ on leads l\s+.*\n\s+Index Cond: \(.*\(updated_at >=? /;

describe('a poll of the leads changed since a time', () => {
  it("reads the updatedAt index in its statement's generic plan, on a large never-analyzed table", async () => {
    const poll = await listStatement({ updatedFrom: minutesAgo(5), sort: { field: 'updatedAt', direction: 'ASC' } });
    const plan = await withLargeTable(db, 'leads', leads, genericPlanOf(poll.sql));
    expect(plan).toMatch(/Index Scan using \S+ on leads l/);
    expect(plan).toMatch(/Index Cond: \(\(tenant_id = \$\d+\) AND .*environment.* AND \(updated_at >= \$\d+\)\)/);
    expect(plan).not.toMatch(/Seq Scan|Filter:/);
  });

  it('reads only the changed leads once the table is analyzed', async () => {
    const poll = await listStatement({ updatedFrom: minutesAgo(5), sort: { field: 'updatedAt', direction: 'ASC' } });
    const plan = await withLargeTable(db, 'leads', leads, analyzedPlanOf('leads', poll.sql, poll.values));
    expect(plan).toMatch(byUpdatedIndex);
    expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter/);
  });

  it('reads the index for a sort by updatedAt without a time, the first poll of a sync', async () => {
    const first = await listStatement({ sort: { field: 'updatedAt', direction: 'ASC' } });
    const plan = await withLargeTable(db, 'leads', leads, analyzedPlanOf('leads', first.sql, first.values));
    expect(plan).toMatch(byUpdatedIndex);
    expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter|-> {2}Sort /);
  });
});

it("leaves a status's in-use check to the status index (the partial index is what keeps it so)", async () => {
  const inUse = genericPlan(scope, (q) => usesCountSql(q, { entityType: 'lead', code: 'archived', id: '1' }));
  const plan = await withLargeTable(db, 'leads', leads, inUse);
  expect(plan).toMatch(/Index Only Scan using \S+status\S+ on leads/);
});
