import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795306585251 implements MigrationInterface {
  name = 'Initial1795306585251';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "name" character varying(100) NOT NULL, "key_prefix" character varying(16) NOT NULL, "key_hash" character(64) NOT NULL, "scopes" text array NOT NULL DEFAULT '{*}', "status" character varying(10) NOT NULL DEFAULT 'active', "owner_user_id" bigint NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys"  ("key_hash") `);
    await queryRunner.query(`CREATE INDEX "ix_api_keys_tenant" ON "api_keys"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE TABLE "leads" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "email" character varying(320) NOT NULL, "email_normalized" character varying(320) NOT NULL, "first_name" character varying(100) NOT NULL, "last_name" character varying(100) NOT NULL, "phone" character varying(40), "phone_normalized" character varying(20), "source" character varying(20) NOT NULL DEFAULT 'api', "status" character varying(40) NOT NULL DEFAULT 'new', "score" integer NOT NULL DEFAULT '0', "assigned_to" bigint, "created_by" bigint, "custom_fields" jsonb NOT NULL DEFAULT '{}', "duplicates_checked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_cd102ed7a9a4ca7d4d8bfeba406" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_c46c4c41d824f61d0aaffd248a" ON "leads"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_leads_scope_created" ON "leads"  ("tenant_id", "environment", "created_at") `);
    await queryRunner.query(`CREATE INDEX "ix_leads_scope_phone" ON "leads"  ("tenant_id", "environment", "phone_normalized") `);
    await queryRunner.query(`CREATE INDEX "ix_leads_scope_email" ON "leads"  ("tenant_id", "environment", "email_normalized") `);
    await queryRunner.query(
      `CREATE TABLE "lead_duplicates" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "lead_id" bigint NOT NULL, "duplicate_lead_id" bigint NOT NULL, "reasons" text array NOT NULL, CONSTRAINT "PK_e3c2a5a9058b1deb1969a2a16b4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_30c81b0d7de6d029f8c4cdbc71" ON "lead_duplicates"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_lead_duplicates_pair" ON "lead_duplicates"  ("lead_id", "duplicate_lead_id") `);
    await queryRunner.query(
      `CREATE TABLE "tenants" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "name" character varying(200) NOT NULL, "plan" character varying(20) NOT NULL DEFAULT 'free', "custom_limits" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_53be67a04681c66b87ee27c9321" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "users" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "email" character varying(320) NOT NULL, "password_hash" character varying(200) NOT NULL, "first_name" character varying(100) NOT NULL, "last_name" character varying(100) NOT NULL, "phone" character varying(40), "role_id" character varying(40) NOT NULL DEFAULT 'admin', "status" character varying(20) NOT NULL DEFAULT 'active', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_tenant_email" ON "users"  ("tenant_id", "email") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_users_tenant_email"`);
    await queryRunner.query(`DROP TABLE "users"`);
    await queryRunner.query(`DROP TABLE "tenants"`);
    await queryRunner.query(`DROP INDEX "public"."uq_lead_duplicates_pair"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_30c81b0d7de6d029f8c4cdbc71"`);
    await queryRunner.query(`DROP TABLE "lead_duplicates"`);
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_email"`);
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_phone"`);
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_c46c4c41d824f61d0aaffd248a"`);
    await queryRunner.query(`DROP TABLE "leads"`);
    await queryRunner.query(`DROP INDEX "public"."ix_api_keys_tenant"`);
    await queryRunner.query(`DROP INDEX "public"."uq_api_keys_hash"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
  }
}
