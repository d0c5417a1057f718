import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Duplicate clusters as membership (docs/decisions.md, "Data"): `lead_identities` holds a row per
 * (key, lead) and replaces `lead_duplicates`, which held a row per pair in each direction, so a
 * cluster of n leads cost about n² rows and one shared phone could flood the table. The pairs were derived
 * from the leads' emails and phones, so the leads themselves carry the data across.
 */
export class AddLeadIdentities1795356000000 implements MigrationInterface {
  name = 'AddLeadIdentities1795356000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lead_identities" ("tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "key" character varying(330) NOT NULL, "lead_id" bigint NOT NULL, CONSTRAINT "PK_lead_identities" PRIMARY KEY ("tenant_id", "environment", "key", "lead_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_lead_identities_lead" ON "lead_identities" ("lead_id")`);
    await queryRunner.query(
      `INSERT INTO lead_identities (tenant_id, environment, key, lead_id)
       SELECT tenant_id, environment, 'e:' || email_normalized, id FROM leads
       UNION ALL
       SELECT tenant_id, environment, 'p:' || phone_normalized, id FROM leads WHERE phone_normalized IS NOT NULL`,
    );
    await queryRunner.query(`DROP TABLE "lead_duplicates"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lead_duplicates" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "lead_id" bigint NOT NULL, "duplicate_lead_id" bigint NOT NULL, "reasons" text array NOT NULL, CONSTRAINT "PK_e3c2a5a9058b1deb1969a2a16b4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_30c81b0d7de6d029f8c4cdbc71" ON "lead_duplicates"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_lead_duplicates_pair" ON "lead_duplicates"  ("lead_id", "duplicate_lead_id") `);
    await queryRunner.query(
      `INSERT INTO lead_duplicates (tenant_id, environment, lead_id, duplicate_lead_id, reasons)
       SELECT a.tenant_id, a.environment, a.lead_id, b.lead_id,
              array_agg(CASE WHEN a.key LIKE 'e:%' THEN 'email' ELSE 'phone' END ORDER BY a.key)
         FROM lead_identities a
         JOIN lead_identities b ON b.tenant_id = a.tenant_id AND b.environment = a.environment AND b.key = a.key AND b.lead_id <> a.lead_id
        GROUP BY a.tenant_id, a.environment, a.lead_id, b.lead_id`,
    );
    await queryRunner.query(`DROP TABLE "lead_identities"`);
  }
}
