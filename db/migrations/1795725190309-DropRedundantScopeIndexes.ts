import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leads and search documents lose their plain (tenant_id, environment) index: each has indexes that
 * start with the pair (leads: created_at, email, phone; search documents: the unique document key),
 * so the plain one served no query those could not and cost a write on every insert.
 */
export class DropRedundantScopeIndexes1795725190309 implements MigrationInterface {
  name = 'DropRedundantScopeIndexes1795725190309';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_c46c4c41d824f61d0aaffd248a"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_f3c950b38a50699e78f686f2a3"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_f3c950b38a50699e78f686f2a3" ON "search_documents" USING btree ("tenant_id", "environment") `,
    );
    await queryRunner.query(`CREATE INDEX "IDX_c46c4c41d824f61d0aaffd248a" ON "leads" USING btree ("tenant_id", "environment") `);
  }
}
