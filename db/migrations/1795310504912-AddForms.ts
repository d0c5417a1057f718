import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddForms1795310504912 implements MigrationInterface {
  name = 'AddForms1795310504912';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "forms" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(200) NOT NULL, "description" character varying(1000) NOT NULL DEFAULT '', "fields" jsonb NOT NULL, "status" character varying(10) NOT NULL DEFAULT 'active', "success_message" character varying(500) NOT NULL DEFAULT 'Thank you! We will be in touch.', "redirect_url" character varying(2000), "landing_page_id" bigint, "created_by" bigint, "submission_count" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_ba062fd30b06814a60756f233da" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_bfa88c22d79eb3d5aa516a2e5b" ON "forms"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_forms_landing_page" ON "forms"  ("landing_page_id") WHERE "landing_page_id" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE TABLE "form_submissions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "form_id" bigint NOT NULL, "lead_id" bigint, "fields" jsonb NOT NULL, "ip" character varying(64), CONSTRAINT "PK_fb6e1e9f26cda31c358a8a1530e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_7612f6021191ffc456f83a7e4a" ON "form_submissions"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_form_submissions_form" ON "form_submissions"  ("form_id", "created_at") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_form_submissions_form"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_7612f6021191ffc456f83a7e4a"`);
    await queryRunner.query(`DROP TABLE "form_submissions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_forms_landing_page"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_bfa88c22d79eb3d5aa516a2e5b"`);
    await queryRunner.query(`DROP TABLE "forms"`);
  }
}
