import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddOperations1795354000000 implements MigrationInterface {
  name = 'AddOperations1795354000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "operations" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "type" character varying(40) NOT NULL, "resource_id" bigint NOT NULL, "workflow_id" character varying(200) NOT NULL, "status" character varying(12) NOT NULL DEFAULT 'running', "total" integer NOT NULL DEFAULT '0', "processed" integer NOT NULL DEFAULT '0', "finished_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_7b62d84d6f9912b975987165856" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_eb50f711058f43cda253f6641b" ON "operations" ("tenant_id", "environment") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_eb50f711058f43cda253f6641b"`);
    await queryRunner.query(`DROP TABLE "operations"`);
  }
}
