import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leads by status, newest last: the in-use check of a status definition's delete or new code
 * (domain/status-definitions.ts, `leadsWithStatusSql`) reads the status's leads up to 10,000 instead
 * of every lead of the scope, and `GET /v1/leads?status=` walks one status in `createdAt` order.
 * No index of `leads` served either: every one starts with the scope, none goes on with the status.
 *
 * Built CONCURRENTLY, so lead creates go on while a large table is indexed; that cannot run inside
 * a transaction, hence `transaction = false`. A build that failed half-way leaves an invalid index
 * of the same name behind, which the drop before it clears. `down` runs in the revert's transaction
 * (TypeORM always gives one), so it drops without CONCURRENTLY.
 */
export class AddLeadsStatusIndex1796030000000 implements MigrationInterface {
  name = 'AddLeadsStatusIndex1796030000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_leads_scope_status"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_leads_scope_status" ON "leads" ("tenant_id", "environment", "status", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_status"`);
  }
}
