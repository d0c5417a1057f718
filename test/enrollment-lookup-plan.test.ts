import type { DataSource } from 'typeorm';
import { initializeDatabase } from '../db/data-source';
import type { ScopedSqlBuilder } from '../db/scoped-sql';
import { activeEnrollmentsSql } from '../domain/engagement/record-engagement';
import { analyzedPlan, genericPlan, withLargeTable } from './support/query-plans';

/**
 * An engagement event that names its enrollment (`workflowExecutionId`) looks it up by workflow
 * ID. Through the scope's index that read every enrollment of the tenant, for each event. The
 * statement must read the workflow index both as a prepared statement's generic plan and with
 * statistics, for one event and for a batch.
 */
let db: DataSource;
beforeAll(async () => {
  db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 1 });
});
afterAll(() => db.destroy());

const scope = { tenantId: '1', environment: 'live' as const };
const named = (q: ScopedSqlBuilder) => activeEnrollmentsSql(q, 'workflow_id', ['campaign/cmp1/lead/lead77']);
const batch = (q: ScopedSqlBuilder) => activeEnrollmentsSql(q, 'workflow_id', ['campaign/cmp1/lead/lead77', 'campaign/cmp1/lead/lead78']);
// One tenant's enrollments of one campaign, most of them active; another tenant's beside them.
const enrollments = `INSERT INTO campaign_enrollments (id, tenant_id, environment, campaign_id, lead_id, workflow_id, workflow_version, status)
  OVERRIDING SYSTEM VALUE SELECT g, CASE WHEN g % 10 = 0 THEN 2 ELSE 1 END, 'live', 1, g, 'campaign/cmp1/lead/lead' || g, 1,
    CASE WHEN g % 4 = 0 THEN 'completed' ELSE 'active' END`;

// A batch: a group of concurrent API events (domain/engagement/grouped-events.ts), or tracking hits.
it.each([
  ['one event', named],
  ['a batch', batch],
])('reads the workflow index in the generic plan of its prepared statement for %s, on a large never-analyzed table', async (_, sql) => {
  const plan = await withLargeTable(db, 'campaign_enrollments', enrollments, genericPlan(scope, sql));
  expect(plan).toMatch(/Index Scan using \S*workflow\S* on campaign_enrollments/);
  expect(plan).not.toMatch(/Seq Scan/);
});

it.each([
  ['one event', named],
  ['a batch', batch],
])('reads the workflow index for %s once the table is analyzed', async (_, sql) => {
  const plan = await withLargeTable(db, 'campaign_enrollments', enrollments, analyzedPlan(scope, 'campaign_enrollments', sql));
  expect(plan).toMatch(/Index Scan using \S*workflow\S* on campaign_enrollments/);
  expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter: [1-9]\d/);
});

// The leads of a group's events, or of a batch of tracking hits: each lead's enrollments through
// the lead index, not the scope's. Only with statistics: on a never-analyzed table a generic plan
// prices the scope's part of either index at one row, and for a lead (one or several) it took the
// workflow index with the lead as a filter, as it did before batches were grouped.
const leadsBatch = (q: ScopedSqlBuilder) => activeEnrollmentsSql(q, 'lead_id', ['77', '78']);
it('reads the lead index by lead for a batch of leads once the table is analyzed', async () => {
  const plan = await withLargeTable(db, 'campaign_enrollments', enrollments, analyzedPlan(scope, 'campaign_enrollments', leadsBatch));
  expect(plan).toMatch(/Index Scan using \S*lead_id\S* on campaign_enrollments[^\n]*\n\s+Index Cond: [^\n]*lead_id/);
  expect(plan).not.toMatch(/Seq Scan|Rows Removed by Filter: [1-9]\d/);
});
