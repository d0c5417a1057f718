import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A sending domain is the tenant's once its DKIM record is published: live mail from a sender at
 * that domain needs a key verified against DNS (docs/decisions.md, "Sending domains are verified").
 */
export class AddDkimKeyVerification1795980000000 implements MigrationInterface {
  name = 'AddDkimKeyVerification1795980000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "dkim_keys" ADD "verified_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "dkim_keys" DROP COLUMN "verified_at"`);
  }
}
