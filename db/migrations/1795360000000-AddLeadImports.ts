import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddLeadImports1795360000000 implements MigrationInterface {
  name = 'AddLeadImports1795360000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lead_imports" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "file_id" bigint NOT NULL, "file_size" integer NOT NULL, "format" character varying(10) NOT NULL, "mapping" jsonb NOT NULL, "header" jsonb, "on_existing" character varying(10) NOT NULL, "emit_lead_events" boolean NOT NULL DEFAULT false, "trigger_campaigns" boolean NOT NULL DEFAULT false, "status" character varying(12) NOT NULL DEFAULT 'queued', "row_cap" integer NOT NULL, "cursor" bigint NOT NULL DEFAULT '0', "lines" integer NOT NULL DEFAULT '0', "rows_read" integer NOT NULL DEFAULT '0', "created" integer NOT NULL DEFAULT '0', "updated" integer NOT NULL DEFAULT '0', "skipped" integer NOT NULL DEFAULT '0', "failed" integer NOT NULL DEFAULT '0', "error" text, "workflow_id" character varying(200) NOT NULL, "created_by" bigint, "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_3a02aee77d4f7ce4422b215096e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_88c97ea07e922032f6d6b575a7" ON "lead_imports" ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_lead_imports_scope_status" ON "lead_imports" ("tenant_id", "environment", "status") `);
    await queryRunner.query(
      `CREATE TABLE "lead_import_failures" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "import_id" bigint NOT NULL, "line" integer NOT NULL, "reason" text NOT NULL, "raw" jsonb NOT NULL, CONSTRAINT "PK_faf125b5a5b51eb6e2d12f3cffe" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_00019437b340574eef35f90eb3" ON "lead_import_failures" ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_lead_import_failures_import_line" ON "lead_import_failures" ("tenant_id", "environment", "import_id", "line") `,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lead_import_failures"`);
    await queryRunner.query(`DROP TABLE "lead_imports"`);
  }
}
