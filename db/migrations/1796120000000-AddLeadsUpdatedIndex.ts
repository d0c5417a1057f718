import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leads by when they last changed: `GET /v1/leads?updatedFrom=` (and the export's), which an
 * integration polls to sync what changed since its last run, and `sort=updatedAt`. No index of
 * `leads` served either: without it each poll read every lead of the scope.
 *
 * Built CONCURRENTLY, as AddLeadsStatusIndex is, and for the same reasons.
 */
export class AddLeadsUpdatedIndex1796120000000 implements MigrationInterface {
  name = 'AddLeadsUpdatedIndex1796120000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_leads_scope_updated"`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY "ix_leads_scope_updated" ON "leads" ("tenant_id", "environment", "updated_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_updated"`);
  }
}
