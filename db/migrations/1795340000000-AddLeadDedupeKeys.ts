import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddLeadDedupeKeys1795340000000 implements MigrationInterface {
  name = 'AddLeadDedupeKeys1795340000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "lead_dedupe_keys" ("tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "key" character varying(330) NOT NULL, "lead_id" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_be77fa4a464bd4451b9b3bbeefb" PRIMARY KEY ("tenant_id", "environment", "key"))`,
    );
    // Hand-written: the keys of the leads that exist already, claimed by the oldest lead with each.
    await queryRunner.query(
      `INSERT INTO lead_dedupe_keys (tenant_id, environment, key, lead_id)
       SELECT DISTINCT ON (tenant_id, environment, key) tenant_id, environment, key, id
         FROM (SELECT tenant_id, environment, 'e:' || email_normalized AS key, id FROM leads
               UNION ALL
               SELECT tenant_id, environment, 'p:' || phone_normalized, id FROM leads WHERE phone_normalized IS NOT NULL) k
        ORDER BY tenant_id, environment, key, id`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "lead_dedupe_keys"`);
  }
}
