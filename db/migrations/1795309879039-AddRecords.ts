import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddRecords1795309879039 implements MigrationInterface {
  name = 'AddRecords1795309879039';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "commissions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "partner_id" bigint NOT NULL, "amount" numeric(14,2) NOT NULL, "currency" character varying(3) NOT NULL, "status" character varying(8) NOT NULL DEFAULT 'earned', "rate" numeric(6,4), "lead_id" bigint, "opportunity_id" bigint, "note" character varying(500), "paid_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_2701379966e2e670bb5ff0ae78e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_22a71bbc9223fdef8a71aceb60" ON "commissions"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_commissions_opportunity" ON "commissions"  ("tenant_id", "environment", "opportunity_id") WHERE opportunity_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "ix_commissions_scope_partner" ON "commissions"  ("tenant_id", "environment", "partner_id") `);
    await queryRunner.query(
      `CREATE TABLE "partners" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "email" character varying(320) NOT NULL, "first_name" character varying(100) NOT NULL, "last_name" character varying(100) NOT NULL, "phone" character varying(40), "company" character varying(200), "tier" character varying(10) NOT NULL DEFAULT 'bronze', "status" character varying(10) NOT NULL DEFAULT 'pending', "parent_id" bigint, "approved_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_998645b20820e4ab99aeae03b41" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_bb03b4e4a6a6c3cf507b3a4e49" ON "partners"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_partners_scope_created" ON "partners"  ("tenant_id", "environment", "created_at") `);
    await queryRunner.query(`CREATE INDEX "ix_partners_scope_parent" ON "partners"  ("tenant_id", "environment", "parent_id") `);
    await queryRunner.query(
      `CREATE TABLE "partner_referral_codes" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "partner_id" bigint NOT NULL, "code" character varying(40) NOT NULL, CONSTRAINT "PK_56e300b399cdff16d3de6e94891" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_22eaf1a6da295fa97cbaa20c1f" ON "partner_referral_codes"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_partner_referral_codes_partner" ON "partner_referral_codes"  ("partner_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_partner_referral_codes_code" ON "partner_referral_codes"  ("tenant_id", "environment", "code") `,
    );
    await queryRunner.query(
      `CREATE TABLE "search_documents" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "doc_type" character varying(20) NOT NULL, "doc_id" character varying(40) NOT NULL, "data" jsonb NOT NULL, "title" text NOT NULL, "body" text NOT NULL, "tsv" tsvector, "indexed_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_bc42b02dc01b44241830f638cf6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_f3c950b38a50699e78f686f2a3" ON "search_documents"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_search_documents_doc" ON "search_documents"  ("tenant_id", "environment", "doc_type", "doc_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "tasks" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "title" character varying(200) NOT NULL, "description" text, "due_at" TIMESTAMP WITH TIME ZONE, "lead_id" bigint, "opportunity_id" bigint, "assigned_to" bigint, "type" character varying(10) NOT NULL DEFAULT 'other', "status" character varying(12) NOT NULL DEFAULT 'pending', "created_by" bigint, "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_8d12ff38fcc62aaba2cab748772" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_7731607e5ed98bbacfd52a1d2d" ON "tasks"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_tasks_scope_lead" ON "tasks"  ("tenant_id", "environment", "lead_id") `);
    await queryRunner.query(`CREATE INDEX "ix_tasks_scope_assignee" ON "tasks"  ("tenant_id", "environment", "assigned_to") `);
    await queryRunner.query(`CREATE INDEX "ix_tasks_scope_due" ON "tasks"  ("tenant_id", "environment", "due_at") `);
    await queryRunner.query(`ALTER TABLE "leads" ADD "partner_id" bigint`);
    // Hand-written: what TypeORM cannot declare (the GIN index and the trigger that keeps tsv current).
    await queryRunner.query(`CREATE INDEX "ix_search_documents_tsv" ON "search_documents" USING GIN ("tsv")`);
    await queryRunner.query(
      `CREATE FUNCTION search_documents_tsv() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.tsv := setweight(to_tsvector('simple', coalesce(NEW.title, '')), 'A') || setweight(to_tsvector('simple', coalesce(NEW.body, '')), 'B'); RETURN NEW; END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER search_documents_tsv BEFORE INSERT OR UPDATE OF title, body ON "search_documents" FOR EACH ROW EXECUTE FUNCTION search_documents_tsv()`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER search_documents_tsv ON "search_documents"`);
    await queryRunner.query(`DROP FUNCTION search_documents_tsv()`);
    await queryRunner.query(`DROP INDEX "public"."ix_search_documents_tsv"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN "partner_id"`);
    await queryRunner.query(`DROP INDEX "public"."ix_tasks_scope_due"`);
    await queryRunner.query(`DROP INDEX "public"."ix_tasks_scope_assignee"`);
    await queryRunner.query(`DROP INDEX "public"."ix_tasks_scope_lead"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_7731607e5ed98bbacfd52a1d2d"`);
    await queryRunner.query(`DROP TABLE "tasks"`);
    await queryRunner.query(`DROP INDEX "public"."uq_search_documents_doc"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_f3c950b38a50699e78f686f2a3"`);
    await queryRunner.query(`DROP TABLE "search_documents"`);
    await queryRunner.query(`DROP INDEX "public"."uq_partner_referral_codes_code"`);
    await queryRunner.query(`DROP INDEX "public"."ix_partner_referral_codes_partner"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_22eaf1a6da295fa97cbaa20c1f"`);
    await queryRunner.query(`DROP TABLE "partner_referral_codes"`);
    await queryRunner.query(`DROP INDEX "public"."ix_partners_scope_parent"`);
    await queryRunner.query(`DROP INDEX "public"."ix_partners_scope_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_bb03b4e4a6a6c3cf507b3a4e49"`);
    await queryRunner.query(`DROP TABLE "partners"`);
    await queryRunner.query(`DROP INDEX "public"."ix_commissions_scope_partner"`);
    await queryRunner.query(`DROP INDEX "public"."uq_commissions_opportunity"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_22a71bbc9223fdef8a71aceb60"`);
    await queryRunner.query(`DROP TABLE "commissions"`);
  }
}
