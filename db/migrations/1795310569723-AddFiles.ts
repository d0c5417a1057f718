import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddFiles1795310569723 implements MigrationInterface {
  name = 'AddFiles1795310569723';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "files" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "filename" character varying(255) NOT NULL, "content_type" character varying(100) NOT NULL, "size" integer NOT NULL, "entity_type" character varying(20), "entity_id" bigint, "sha256" character varying(64) NOT NULL, "uploaded_by" bigint, CONSTRAINT "PK_6c16b9093a142e0e7613b04a3d9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_b5b928f2fe23c42969ea1ac242" ON "files"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_files_scope_entity" ON "files"  ("tenant_id", "environment", "entity_type", "entity_id") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_files_scope_entity"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b5b928f2fe23c42969ea1ac242"`);
    await queryRunner.query(`DROP TABLE "files"`);
  }
}
