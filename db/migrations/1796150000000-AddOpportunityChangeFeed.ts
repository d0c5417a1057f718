import type { MigrationInterface, QueryRunner } from 'typeorm';
import { inIdBatches, inTransaction } from './batched-steps';

/** Deals given their place in the feed per statement, as AddLeadChangeFeed gives leads theirs. */
const BATCH = 5000;

/** The current transaction's ID as a bigint (xid8 has no cast to it; its text is the number). */
const CURRENT_XID = 'pg_current_xact_id()::text::bigint';

/**
 * The deals' change feed (GET /v1/opportunities/changes), as AddLeadChangeFeed1796130000000 made
 * the leads' (read that one for why each part is so): `change_xid` on every deal, a row in
 * `opportunity_deletions` for every deleted one, both written by triggers; existing deals placed
 * in keyset batches; the index built afterwards, concurrently and partial. The deletions' index on
 * `deleted_at` serves the hourly prune (AddLeadDeletionRetention1796140000000).
 */
export class AddOpportunityChangeFeed1796150000000 implements MigrationInterface {
  name = 'AddOpportunityChangeFeed1796150000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await inTransaction(queryRunner, () => this.addTriggers(queryRunner));
    await inIdBatches(queryRunner, 'opportunities', BATCH, (after, last) =>
      queryRunner.query(`UPDATE opportunities SET change_xid = ${CURRENT_XID} WHERE id > $1 AND id <= $2 AND change_xid IS NULL`, [
        after,
        last,
      ]),
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_opportunities_scope_change"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_opportunities_scope_change" ON "opportunities" ("tenant_id", "environment", "change_xid", "id") WHERE change_xid IS NOT NULL`,
    );
  }

  private async addTriggers(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "opportunities" ADD COLUMN IF NOT EXISTS "change_xid" bigint`);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "opportunity_deletions" ("opportunity_id" bigint NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "change_xid" bigint NOT NULL, "deleted_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_opportunity_deletions" PRIMARY KEY ("opportunity_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "ix_opportunity_deletions_scope_change" ON "opportunity_deletions" ("tenant_id", "environment", "change_xid", "opportunity_id")`,
    );
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS "ix_opportunity_deletions_deleted_at" ON "opportunity_deletions" ("deleted_at")`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION opportunities_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO opportunity_deletions (opportunity_id, tenant_id, environment, change_xid, deleted_at)
    VALUES (OLD.id, OLD.tenant_id, OLD.environment, ${CURRENT_XID}, now()) ON CONFLICT (opportunity_id) DO NOTHING;
  RETURN OLD;
END $$`);
    // The leads' trigger function sets NEW.change_xid of any table: the deals' triggers share it.
    await queryRunner.query(`DROP TRIGGER IF EXISTS opportunities_change_xid_insert ON "opportunities"`);
    await queryRunner.query(
      `CREATE TRIGGER opportunities_change_xid_insert BEFORE INSERT ON "opportunities" FOR EACH ROW EXECUTE FUNCTION leads_change_xid()`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS opportunities_change_xid_update ON "opportunities"`);
    await queryRunner.query(`CREATE TRIGGER opportunities_change_xid_update BEFORE UPDATE ON "opportunities" FOR EACH ROW
      WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at) EXECUTE FUNCTION leads_change_xid()`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS opportunities_deleted ON "opportunities"`);
    await queryRunner.query(
      `CREATE TRIGGER opportunities_deleted AFTER DELETE ON "opportunities" FOR EACH ROW EXECUTE FUNCTION opportunities_deleted()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS opportunities_deleted ON "opportunities"`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS opportunities_change_xid_update ON "opportunities"`);
    // The leads' trigger function sets NEW.change_xid of any table: the deals' triggers share it.
    await queryRunner.query(`DROP TRIGGER IF EXISTS opportunities_change_xid_insert ON "opportunities"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS opportunities_deleted()`);
    await queryRunner.query(`DROP TABLE IF EXISTS "opportunity_deletions"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "public"."ix_opportunities_scope_change"`);
    await queryRunner.query(`ALTER TABLE "opportunities" DROP COLUMN IF EXISTS "change_xid"`);
  }
}
