import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddEngagementSettings1795357000000 implements MigrationInterface {
  name = 'AddEngagementSettings1795357000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tenants" ADD "engagement_settings" jsonb NOT NULL DEFAULT '{}'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "tenants" DROP COLUMN "engagement_settings"`);
  }
}
