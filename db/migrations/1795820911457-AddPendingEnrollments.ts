import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Automatic enrollments recorded with the lead write that triggers them and made after the answer
 * by the auto-enroll workflow (before, the request waited for them, about 100 ms per campaign).
 */
export class AddPendingEnrollments1795820911457 implements MigrationInterface {
  name = 'AddPendingEnrollments1795820911457';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "pending_enrollments" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "trigger" character varying(30) NOT NULL, "lead_ids" bigint array NOT NULL, "campaign_ids" bigint array NOT NULL, "actor_user_id" bigint NOT NULL, CONSTRAINT "PK_f458e4ddce061878fd9ac2219ca" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_pending_enrollments_created" ON "pending_enrollments"  ("created_at") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_pending_enrollments_created"`);
    await queryRunner.query(`DROP TABLE "pending_enrollments"`);
  }
}
