import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import { Lead } from '../db/entities';
import { selectByIdSql } from '../db/scoped-repository';
import { genericPlanOf, withLargeTable } from './support/query-plans';

/**
 * GET /v1/<resource>/:id reads through a prepared statement (db/scoped-repository.ts). PostgreSQL
 * caches a generic plan for it after a few runs; on a table that grew faster than its statistics
 * (a tenant's first big import, before autoanalyze) that plan walked a (tenant_id, ...) index and
 * filtered on id: every row of the tenant per lookup. The benchmark (T3 after T2's inserts) fell
 * from about 3,000 to 300 requests/s. The plan must use the primary key whatever the statistics.
 */
let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 1 });
});
afterAll(() => db.destroy());

it("the by-id statement's generic plan looks the row up by primary key on a large, never-analyzed table", async () => {
  // A temporary `leads` shadows the real one: same columns and indexes, 30,000 rows of one tenant, no
  // statistics (autovacuum never analyzes temporary tables).
  const plan = await withLargeTable(
    db,
    'leads',
    `INSERT INTO leads (id, tenant_id, environment, email, email_normalized, first_name, last_name)
     OVERRIDING SYSTEM VALUE SELECT g, 1, 'live', 'l' || g || '@x.io', 'l' || g || '@x.io', 'L', 'L'`,
    genericPlanOf(selectByIdSql(db.getMetadata(Lead), true, 'none')),
  );
  expect(plan).toMatch(/Index Cond: \(id = \$1\)/);
});
