import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddAccessControl1795308613341 implements MigrationInterface {
  name = 'AddAccessControl1795308613341';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "audit_logs" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "api_key_id" bigint, "owner_user_id" bigint NOT NULL, "actor_user_id" bigint NOT NULL, "action" character varying(200) NOT NULL, "resource_type" character varying(60) NOT NULL, "resource_id" character varying(40), "status_code" smallint NOT NULL, "request_id" character varying(128) NOT NULL, "ip" character varying(64), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1bb179d048bbc581caa3b013439" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_audit_logs_scope_created" ON "audit_logs"  ("tenant_id", "environment", "created_at") `);
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "key" character varying(255) NOT NULL, "request_hash" character(64) NOT NULL, "status_code" smallint, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_0cbacd838239c5ded2dc5e25dce" PRIMARY KEY ("tenant_id", "environment", "key"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "rate_counters" ("key" character varying(120) NOT NULL, "window_start" TIMESTAMP WITH TIME ZONE NOT NULL, "count" integer NOT NULL DEFAULT '0', "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_09aee4c3929a6d82949dab09b97" PRIMARY KEY ("key", "window_start"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_rate_counters_expires" ON "rate_counters"  ("expires_at") `);
    await queryRunner.query(
      `CREATE TABLE "teams" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "name" character varying(100) NOT NULL, "description" character varying(1000), "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_7e5523774a38b08a6236d322403" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_teams_tenant" ON "teams"  ("tenant_id") `);
    await queryRunner.query(
      `CREATE TABLE "team_members" ("team_id" bigint NOT NULL, "user_id" bigint NOT NULL, "tenant_id" bigint NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1d3c06a8217a8785e2af0ec4ab8" PRIMARY KEY ("team_id", "user_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_team_members_user" ON "team_members"  ("user_id") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_team_members_user"`);
    await queryRunner.query(`DROP TABLE "team_members"`);
    await queryRunner.query(`DROP INDEX "public"."ix_teams_tenant"`);
    await queryRunner.query(`DROP TABLE "teams"`);
    await queryRunner.query(`DROP INDEX "public"."ix_rate_counters_expires"`);
    await queryRunner.query(`DROP TABLE "rate_counters"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP INDEX "public"."ix_audit_logs_scope_created"`);
    await queryRunner.query(`DROP TABLE "audit_logs"`);
  }
}
