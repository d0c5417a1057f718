import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency records are scoped per caller (API key, or user for the platform UI), not per tenant
 * and environment: otherwise another key of the tenant replays the first key's response, secrets
 * included. Existing records are dropped (they only serve retries within 24 h and cannot be assigned
 * to a caller). Responses that carried a secret are stored redacted and flagged.
 */
export class ScopeIdempotencyKeysPerCaller1795350000000 implements MigrationInterface {
  name = 'ScopeIdempotencyKeysPerCaller1795350000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "idempotency_keys"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "principal" character varying(40) NOT NULL`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" ADD "secret_redacted" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP CONSTRAINT "PK_0cbacd838239c5ded2dc5e25dce"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "PK_cf461fe8a3c8ad1024ac46c9d11" PRIMARY KEY ("tenant_id", "environment", "principal", "key")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_idempotency_keys_created_at" ON "idempotency_keys" ("created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_idempotency_keys_created_at"`);
    await queryRunner.query(`DELETE FROM "idempotency_keys"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP CONSTRAINT "PK_cf461fe8a3c8ad1024ac46c9d11"`);
    await queryRunner.query(
      `ALTER TABLE "idempotency_keys" ADD CONSTRAINT "PK_0cbacd838239c5ded2dc5e25dce" PRIMARY KEY ("tenant_id", "environment", "key")`,
    );
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "secret_redacted"`);
    await queryRunner.query(`ALTER TABLE "idempotency_keys" DROP COLUMN "principal"`);
  }
}
