import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Per-account login backoff, shared by every API process (domain/login-throttle.ts). */
export class AddLoginFailures1795350000001 implements MigrationInterface {
  name = 'AddLoginFailures1795350000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "login_failures" ("account" character(64) NOT NULL, "failures" integer NOT NULL, "blocked_until" TIMESTAMP WITH TIME ZONE, "last_failure_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a0ac04c082e287a12d866f14a2f" PRIMARY KEY ("account"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_login_failures_last_failure" ON "login_failures" ("last_failure_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "login_failures"`);
  }
}
