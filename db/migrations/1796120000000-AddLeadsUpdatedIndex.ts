import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leads by when they last changed: `GET /v1/leads?updatedFrom=` (and the export's), which an
 * integration polls to sync what changed since its last run, and `sort=updatedAt`. No index of
 * `leads` served either: without it each poll read every lead of the scope.
 *
 * Partial on `updated_at IS NOT NULL`, which every lead is: a query uses the index only when its
 * conditions imply that, as a comparison of `updated_at` does (the list adds `> '-infinity'` to a
 * sort by it without a time).
 * A full index on the same columns took the place of the status index in the generic plan of a
 * status delete's in-use check (test/status-in-use-plan.test.ts): on a table the planner has no
 * statistics of, both cost it about one row, and it read the narrower index, filtering the status.
 *
 * Built CONCURRENTLY, as AddLeadsStatusIndex is, and for the same reasons.
 */
export class AddLeadsUpdatedIndex1796120000000 implements MigrationInterface {
  name = 'AddLeadsUpdatedIndex1796120000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_leads_scope_updated"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_leads_scope_updated" ON "leads" ("tenant_id", "environment", "updated_at") WHERE updated_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_updated"`);
  }
}
