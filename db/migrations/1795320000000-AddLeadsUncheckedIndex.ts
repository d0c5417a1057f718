import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddLeadsUncheckedIndex1795320000000 implements MigrationInterface {
  name = 'AddLeadsUncheckedIndex1795320000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_leads_unchecked" ON "leads" ("created_at") WHERE duplicates_checked_at IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_leads_unchecked"`);
  }
}
