import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The range of lead IDs an import's last applied chunk created: its search-document step needs it,
 * also when the chunk's result was lost and its retry only finds the chunk applied.
 */
export class AddImportChunkLeadRange1795740000000 implements MigrationInterface {
  name = 'AddImportChunkLeadRange1795740000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lead_imports" ADD "chunk_first_lead_id" bigint`);
    await queryRunner.query(`ALTER TABLE "lead_imports" ADD "chunk_last_lead_id" bigint`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "lead_imports" DROP COLUMN "chunk_last_lead_id"`);
    await queryRunner.query(`ALTER TABLE "lead_imports" DROP COLUMN "chunk_first_lead_id"`);
  }
}
