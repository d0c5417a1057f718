import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddEmailSuppressions1795352100000 implements MigrationInterface {
  name = 'AddEmailSuppressions1795352100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "email_suppressions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "address" character varying(320) NOT NULL, "reason" character varying(12) NOT NULL, CONSTRAINT "PK_7cbfac84982223bb8abd0d32845" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_fb125b839c389492ad6e14d616" ON "email_suppressions" ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_email_suppressions_address" ON "email_suppressions" ("tenant_id", "environment", "address") `,
    );
    // Hand-written: the addresses of leads already unsubscribed or bounced, one row per address (a bounce wins).
    await queryRunner.query(
      `INSERT INTO email_suppressions (tenant_id, environment, address, reason, created_at)
       SELECT tenant_id, environment, email_normalized,
              CASE WHEN bool_or(bounced_at IS NOT NULL) THEN 'bounced' ELSE 'unsubscribed' END,
              LEAST(min(unsubscribed_at), min(bounced_at))
         FROM leads WHERE unsubscribed_at IS NOT NULL OR bounced_at IS NOT NULL
        GROUP BY tenant_id, environment, email_normalized`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "email_suppressions"`);
  }
}
