import type { MigrationInterface, QueryRunner } from 'typeorm';

/** As the entity declares it (db/entities/message.ts): the sweep's query names the same conditions, so the planner can use the index. */
const SMS_AWAITING_STATUS =
  "channel = 'sms' AND status = 'sent' AND delivered_at IS NULL AND NOT sandbox AND provider_message_id IS NOT NULL AND status_check_error IS NULL";

/**
 * The SMS status sweep (domain/communications/reconcile-sms-statuses.ts) asks Twilio for the status
 * of a sent SMS whose callback never came: when it last asked (`status_checked_at`), and why it
 * stopped asking (`status_check_error`, e.g. Twilio has no such message).
 *
 * Its index holds only the SMS still waiting for a final status (most get one within minutes), by
 * send time, so each pass reads the window it checks and never the whole messages table, emails
 * and all (test/sms-status-sweep-plan.test.ts). Built CONCURRENTLY, as
 * AddEnrollmentsWorkflowIndex1796080000000, so messages go on being written while a large table is
 * indexed (hence `transaction = false`; the drop before it clears an invalid index a failed build
 * left). `down` runs in the revert's transaction, without CONCURRENTLY.
 */
export class AddSmsStatusChecks1796090000000 implements MigrationInterface {
  name = 'AddSmsStatusChecks1796090000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "status_checked_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "status_check_error" character varying(1000)`);
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_messages_sms_unreconciled"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_messages_sms_unreconciled" ON "messages" ("sent_at", "id") WHERE ${SMS_AWAITING_STATUS}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_messages_sms_unreconciled"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "status_check_error"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "status_checked_at"`);
  }
}
