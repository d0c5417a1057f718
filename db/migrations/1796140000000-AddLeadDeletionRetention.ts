import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleted leads' rows are kept for LEAD_DELETION_RETENTION_DAYS (domain/leads/prune-deletions.ts),
 * not for ever. A sync whose cursor is older than what was pruned could miss a deletion, so each
 * scope keeps the place in the feed of the last deletion it pruned (`lead_deletion_horizons`), and
 * the change feed refuses a cursor before it (410) rather than answer without those deletions.
 *
 * The index on `deleted_at` finds what to prune without reading the whole table; built
 * CONCURRENTLY, as the table may already hold every lead ever deleted.
 */
export class AddLeadDeletionRetention1796140000000 implements MigrationInterface {
  name = 'AddLeadDeletionRetention1796140000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "lead_deletion_horizons" ("tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "pruned_through_xid" bigint NOT NULL, "pruned_through_id" bigint NOT NULL, CONSTRAINT "PK_lead_deletion_horizons" PRIMARY KEY ("tenant_id", "environment"))`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_lead_deletions_deleted_at"`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY "ix_lead_deletions_deleted_at" ON "lead_deletions" ("deleted_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_lead_deletions_deleted_at"`);
    await queryRunner.query(`DROP TABLE "lead_deletion_horizons"`);
  }
}
