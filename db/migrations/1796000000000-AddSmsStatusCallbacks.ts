import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Twilio's status callbacks (POST /v1/providers/twilio/status): a message found by its SID across
 * tenants (no index named provider_message_id before), and when Twilio reported it delivered.
 */
export class AddSmsStatusCallbacks1796000000000 implements MigrationInterface {
  name = 'AddSmsStatusCallbacks1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" ADD "delivered_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "ix_messages_sms_provider_id" ON "messages" ("provider_message_id") WHERE channel = 'sms' AND provider_message_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_messages_sms_provider_id"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "delivered_at"`);
  }
}
