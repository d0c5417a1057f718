import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engagement an enrollment's open condition waits for, beside its window: events of other
 * types are not signalled. Null (every window opened before this column) keeps signalling every type.
 */
export class AddEngagementSignalType1796070000000 implements MigrationInterface {
  name = 'AddEngagementSignalType1796070000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaign_enrollments" ADD "engagement_signal_type" character varying(30)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaign_enrollments" DROP COLUMN "engagement_signal_type"`);
  }
}
