import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddEngagementSignalWindow1795361000000 implements MigrationInterface {
  name = 'AddEngagementSignalWindow1795361000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaign_enrollments" ADD "engagement_signals_until" TIMESTAMP WITH TIME ZONE`);
    // Running enrollments may already wait on a condition without having said so: keep signalling them.
    await queryRunner.query(`UPDATE "campaign_enrollments" SET "engagement_signals_until" = 'infinity' WHERE "status" = 'active'`);
    await queryRunner.query(
      `CREATE INDEX "ix_engagement_events_lead" ON "engagement_events" ("tenant_id", "environment", "lead_id", "type") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_engagement_events_lead"`);
    await queryRunner.query(`ALTER TABLE "campaign_enrollments" DROP COLUMN "engagement_signals_until"`);
  }
}
