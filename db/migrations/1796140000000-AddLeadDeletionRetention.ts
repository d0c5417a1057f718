import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleted leads' rows are kept for CHANGE_FEED_RETENTION_DAYS (domain/change-feeds/prune.ts),
 * not for ever. A sync whose cursor is older than what was pruned could miss a deletion, so each
 * feed keeps, per scope, the place of the last deletion it pruned (`change_feed_horizons`), and
 * refuses a cursor before it (410) rather than answer without those deletions.
 *
 * The index on `deleted_at` finds what to prune without reading the whole table; built
 * CONCURRENTLY, as the table may already hold every lead ever deleted.
 */
export class AddLeadDeletionRetention1796140000000 implements MigrationInterface {
  name = 'AddLeadDeletionRetention1796140000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "change_feed_horizons" ("feed" character varying(32) NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "pruned_through_xid" bigint NOT NULL, "pruned_through_id" bigint NOT NULL, CONSTRAINT "PK_change_feed_horizons" PRIMARY KEY ("feed", "tenant_id", "environment"))`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_lead_deletions_deleted_at"`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY "ix_lead_deletions_deleted_at" ON "lead_deletions" ("deleted_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_lead_deletions_deleted_at"`);
    await queryRunner.query(`DROP TABLE "change_feed_horizons"`);
  }
}
