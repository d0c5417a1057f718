import type { MigrationInterface, QueryRunner } from 'typeorm';
import { inIdBatches, inTransaction } from './batched-steps';

/** Leads given their place in the feed per statement: each UPDATE holds their row locks only so long. */
const BATCH = 5000;

/** The current transaction's ID as a bigint (xid8 has no cast to it; its text is the number). */
const CURRENT_XID = 'pg_current_xact_id()::text::bigint';

/**
 * The leads' change feed (GET /v1/leads/changes, domain/leads/changes.ts): every lead carries the
 * ID of the transaction that last created or changed it (`change_xid`), and every deleted lead
 * leaves a row in `lead_deletions` with its delete's transaction ID. The feed reads both in that
 * order, only below the oldest transaction still running, so that a change is read only once every
 * change before it in the feed's order has committed: the guarantee `updatedFrom` (a transaction's
 * start time) cannot give.
 *
 * Triggers write both, so every writer does (the API, imports, merges, suppression updates, an old
 * API process during a deploy). An update moves a lead in the feed when it changes `updated_at`,
 * which every change the API shows does, so the duplicate check's bookkeeping and the search text
 * do not. The column is added empty (no rewrite under an exclusive lock) and existing leads are
 * given the migration's own transaction IDs in keyset batches, as AddLeadSearchText fills its
 * column; the index is built afterwards, CONCURRENTLY, and partial on `change_xid IS NOT NULL` as
 * the updatedAt index is (AddLeadsUpdatedIndex1796120000000), so a status delete's in-use check
 * keeps the status index.
 */
export class AddLeadChangeFeed1796130000000 implements MigrationInterface {
  name = 'AddLeadChangeFeed1796130000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await inTransaction(queryRunner, () => this.addTriggers(queryRunner));
    await inIdBatches(queryRunner, 'leads', BATCH, (after, last) =>
      queryRunner.query(`UPDATE leads SET change_xid = ${CURRENT_XID} WHERE id > $1 AND id <= $2 AND change_xid IS NULL`, [after, last]),
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_leads_scope_change"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_leads_scope_change" ON "leads" ("tenant_id", "environment", "change_xid", "id") WHERE change_xid IS NOT NULL`,
    );
  }

  /** The column, the deletions' table, and the triggers that write both from now on. */
  private async addTriggers(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "leads" ADD COLUMN IF NOT EXISTS "change_xid" bigint`);
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "lead_deletions" ("lead_id" bigint NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "change_xid" bigint NOT NULL, "deleted_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_lead_deletions" PRIMARY KEY ("lead_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX IF NOT EXISTS "ix_lead_deletions_scope_change" ON "lead_deletions" ("tenant_id", "environment", "change_xid", "lead_id")`,
    );
    await queryRunner.query(`CREATE OR REPLACE FUNCTION leads_change_xid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := ${CURRENT_XID};
  RETURN NEW;
END $$`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION leads_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lead_deletions (lead_id, tenant_id, environment, change_xid, deleted_at)
    VALUES (OLD.id, OLD.tenant_id, OLD.environment, ${CURRENT_XID}, now()) ON CONFLICT (lead_id) DO NOTHING;
  RETURN OLD;
END $$`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_change_xid_insert ON "leads"`);
    await queryRunner.query(
      `CREATE TRIGGER leads_change_xid_insert BEFORE INSERT ON "leads" FOR EACH ROW EXECUTE FUNCTION leads_change_xid()`,
    );
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_change_xid_update ON "leads"`);
    await queryRunner.query(`CREATE TRIGGER leads_change_xid_update BEFORE UPDATE ON "leads" FOR EACH ROW
      WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at) EXECUTE FUNCTION leads_change_xid()`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_deleted ON "leads"`);
    await queryRunner.query(`CREATE TRIGGER leads_deleted AFTER DELETE ON "leads" FOR EACH ROW EXECUTE FUNCTION leads_deleted()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_deleted ON "leads"`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_change_xid_update ON "leads"`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_change_xid_insert ON "leads"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS leads_deleted()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS leads_change_xid()`);
    await queryRunner.query(`DROP TABLE IF EXISTS "lead_deletions"`);
    await queryRunner.query(`DROP INDEX IF EXISTS "public"."ix_leads_scope_change"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN IF EXISTS "change_xid"`);
  }
}
