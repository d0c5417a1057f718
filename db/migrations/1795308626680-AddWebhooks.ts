import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddWebhooks1795308626680 implements MigrationInterface {
  name = 'AddWebhooks1795308626680';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "events" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "type" character varying(60) NOT NULL, "data" jsonb NOT NULL, "target_endpoint_id" bigint, "dispatched_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_513170e5aa532adf5d22dbb85a" ON "events"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_events_undispatched" ON "events"  ("created_at") WHERE dispatched_at IS NULL`);
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "event_id" bigint NOT NULL, "endpoint_id" bigint NOT NULL, "event_type" character varying(60) NOT NULL, "status" character varying(10) NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "last_status_code" integer, "last_error" text, "next_attempt_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_e125aeb57dcb3700a7aa02c8f6" ON "webhook_deliveries"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_endpoint_created" ON "webhook_deliveries"  ("endpoint_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_deliveries_event_endpoint" ON "webhook_deliveries"  ("event_id", "endpoint_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_delivery_attempts" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "delivery_id" bigint NOT NULL, "attempt_number" integer NOT NULL, "status_code" integer, "latency_ms" integer NOT NULL, "response_snippet" text, "error" text, CONSTRAINT "PK_59ef9124585b56c18b98548a0c6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_6a550a4e99d59fd352159d8e95" ON "webhook_delivery_attempts"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_delivery_attempts_number" ON "webhook_delivery_attempts"  ("delivery_id", "attempt_number") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoints" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "url" character varying(2048) NOT NULL, "events" text array NOT NULL, "description" character varying(500), "status" character varying(10) NOT NULL DEFAULT 'active', "secret" character varying(100) NOT NULL, "previous_secret" character varying(100), "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "disabled_reason" text, "disabled_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_4b0dd975867f3b5b3595b4b4d0" ON "webhook_endpoints"  ("tenant_id", "environment") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_4b0dd975867f3b5b3595b4b4d0"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_delivery_attempts_number"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_6a550a4e99d59fd352159d8e95"`);
    await queryRunner.query(`DROP TABLE "webhook_delivery_attempts"`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_deliveries_event_endpoint"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_endpoint_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_e125aeb57dcb3700a7aa02c8f6"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."ix_events_undispatched"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_513170e5aa532adf5d22dbb85a"`);
    await queryRunner.query(`DROP TABLE "events"`);
  }
}
