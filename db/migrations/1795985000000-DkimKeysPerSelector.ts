import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A domain may hold a key per selector, so a key is rotated without a gap in signing: register the
 * new key at a new selector, publish and verify it (it signs from then on), then delete the old
 * one (docs/decisions.md, "DKIM").
 */
export class DkimKeysPerSelector1795985000000 implements MigrationInterface {
  name = 'DkimKeysPerSelector1795985000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_dkim_keys_domain"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_dkim_keys_domain_selector" ON "dkim_keys" ("tenant_id", "environment", "domain", "selector") `,
    );
  }

  /** Fails while a domain holds two keys: delete one of them first. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_dkim_keys_domain_selector"`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_dkim_keys_domain" ON "dkim_keys" ("tenant_id", "environment", "domain") `);
  }
}
