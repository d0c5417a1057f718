import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddDefinitions1795308695208 implements MigrationInterface {
  name = 'AddDefinitions1795308695208';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "landing_pages" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(200) NOT NULL, "description" character varying(2000) NOT NULL DEFAULT '', "slug" character varying(80) NOT NULL, "sections" jsonb NOT NULL, "seo" jsonb NOT NULL, "style" jsonb NOT NULL, "content" text NOT NULL, CONSTRAINT "PK_962a8e504985c1488c7e43c7791" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_b0d36f3a3c6a0417cf44bccc1d" ON "landing_pages"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_landing_pages_slug" ON "landing_pages"  ("tenant_id", "environment", "slug") `);
    await queryRunner.query(
      `CREATE TABLE "status_definitions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "entity_type" character varying(20) NOT NULL, "code" character varying(40) NOT NULL, "name" character varying(100) NOT NULL, "description" character varying(500) NOT NULL DEFAULT '', "color" character varying(20) NOT NULL DEFAULT 'gray', "sort_order" integer NOT NULL DEFAULT '0', "is_default" boolean NOT NULL DEFAULT false, "is_closed" boolean NOT NULL DEFAULT false, "is_won" boolean NOT NULL DEFAULT false, "default_probability" integer, CONSTRAINT "PK_b0ace56b8b4d1c193813bb9f308" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_618567921085fde92d2cb88ba1" ON "status_definitions"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_status_definitions_default" ON "status_definitions"  ("tenant_id", "environment", "entity_type") WHERE "is_default"`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_status_definitions_code" ON "status_definitions"  ("tenant_id", "environment", "entity_type", "code") `,
    );
    await queryRunner.query(
      `CREATE TABLE "workflow_definitions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(200) NOT NULL, "description" character varying(2000) NOT NULL DEFAULT '', "nodes" jsonb NOT NULL, "edges" jsonb NOT NULL, "version" integer NOT NULL DEFAULT '1', CONSTRAINT "PK_4f92fadfc5fb722f080ceaec272" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_457a30953e88cce744412362ab" ON "workflow_definitions"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE TABLE "workflow_definition_versions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "workflow_definition_id" bigint NOT NULL, "version" integer NOT NULL, "name" character varying(200) NOT NULL, "description" character varying(2000) NOT NULL DEFAULT '', "nodes" jsonb NOT NULL, "edges" jsonb NOT NULL, CONSTRAINT "PK_68c6710e79b6f60d1be76c0ba0b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_5a48f8a96b11e47a7e442359be" ON "workflow_definition_versions"  ("tenant_id", "environment") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_workflow_definition_versions" ON "workflow_definition_versions"  ("workflow_definition_id", "version") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_workflow_definition_versions"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_5a48f8a96b11e47a7e442359be"`);
    await queryRunner.query(`DROP TABLE "workflow_definition_versions"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_457a30953e88cce744412362ab"`);
    await queryRunner.query(`DROP TABLE "workflow_definitions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_status_definitions_code"`);
    await queryRunner.query(`DROP INDEX "public"."uq_status_definitions_default"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_618567921085fde92d2cb88ba1"`);
    await queryRunner.query(`DROP TABLE "status_definitions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_landing_pages_slug"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b0d36f3a3c6a0417cf44bccc1d"`);
    await queryRunner.query(`DROP TABLE "landing_pages"`);
  }
}
