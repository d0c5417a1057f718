import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddOpportunities1795309954564 implements MigrationInterface {
  name = 'AddOpportunities1795309954564';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "opportunities" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "lead_id" bigint, "converted_from_lead" boolean NOT NULL DEFAULT false, "name" character varying(200) NOT NULL, "value" numeric(14,2) NOT NULL DEFAULT '0', "currency" character(3) NOT NULL DEFAULT 'USD', "stage_id" bigint NOT NULL, "stage" character varying(40) NOT NULL, "status" character varying(10) NOT NULL DEFAULT 'open', "probability" integer NOT NULL DEFAULT '0', "probability_overridden" boolean NOT NULL DEFAULT false, "owner_user_id" bigint, "expected_close_date" date, "closed_at" TIMESTAMP WITH TIME ZONE, "lost_reason" character varying(500), CONSTRAINT "PK_4bd9cd12ddc0ff48a5a97ddebce" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_806065876606bab5c55dee3c97" ON "opportunities"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_opportunities_converted_lead" ON "opportunities"  ("lead_id") WHERE "converted_from_lead"`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_opportunities_scope_created" ON "opportunities"  ("tenant_id", "environment", "created_at") `,
    );
    await queryRunner.query(`ALTER TABLE "leads" ADD "converted_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN "converted_at"`);
    await queryRunner.query(`DROP INDEX "public"."ix_opportunities_scope_created"`);
    await queryRunner.query(`DROP INDEX "public"."uq_opportunities_converted_lead"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_806065876606bab5c55dee3c97"`);
    await queryRunner.query(`DROP TABLE "opportunities"`);
  }
}
