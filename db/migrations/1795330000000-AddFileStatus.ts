import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddFileStatus1795330000000 implements MigrationInterface {
  name = 'AddFileStatus1795330000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "files" ADD "status" character varying(10) NOT NULL DEFAULT 'ready'`);
    await queryRunner.query(`ALTER TABLE "files" ALTER COLUMN "sha256" DROP NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "files" WHERE "sha256" IS NULL`);
    await queryRunner.query(`ALTER TABLE "files" ALTER COLUMN "sha256" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "files" DROP COLUMN "status"`);
  }
}
