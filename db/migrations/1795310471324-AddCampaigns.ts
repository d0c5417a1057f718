import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddCampaigns1795310471324 implements MigrationInterface {
  name = 'AddCampaigns1795310471324';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "campaigns" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(200) NOT NULL, "description" character varying(2000) NOT NULL DEFAULT '', "type" character varying(10) NOT NULL DEFAULT 'email', "status" character varying(10) NOT NULL DEFAULT 'draft', "workflow_definition_id" bigint, "workflow_version" integer, "trigger_type" character varying(40), "activated_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_831e3fcd4fc45b4e4c3f57a9ee4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_48cd6c6f603e1d4c3805eb1f49" ON "campaigns"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_campaigns_scope_trigger" ON "campaigns"  ("tenant_id", "environment", "status", "trigger_type") `,
    );
    await queryRunner.query(
      `CREATE TABLE "campaign_enrollments" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "campaign_id" bigint NOT NULL, "lead_id" bigint NOT NULL, "workflow_id" character varying(200) NOT NULL, "workflow_version" integer NOT NULL, "status" character varying(12) NOT NULL DEFAULT 'active', "exit_reason" character varying(40), "finished_at" TIMESTAMP WITH TIME ZONE, "applied_actions" jsonb NOT NULL DEFAULT '[]', CONSTRAINT "PK_8f729844fbf0d8b8488db2252d8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_0884cc0ad930c5b95756318049" ON "campaign_enrollments"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_campaign_enrollments_lead" ON "campaign_enrollments"  ("tenant_id", "environment", "lead_id") `,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_campaign_enrollments_lead" ON "campaign_enrollments"  ("campaign_id", "lead_id") `);
    await queryRunner.query(
      `CREATE TABLE "email_templates" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "name" character varying(200) NOT NULL, "subject" character varying(300) NOT NULL, "body" text NOT NULL, CONSTRAINT "PK_06c564c515d8cdb40b6f3bfbbb4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_ae36a1426302c744ec5819df0f" ON "email_templates"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE TABLE "engagement_events" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "type" character varying(20) NOT NULL, "lead_id" bigint, "message_id" bigint, "campaign_id" bigint, "workflow_execution_id" character varying(200), "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "machine" boolean NOT NULL DEFAULT false, "details" jsonb NOT NULL DEFAULT '{}', CONSTRAINT "PK_94b6116fa037a6976fabb815b39" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_868bbe5ce8b595ad34892870cb" ON "engagement_events"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_engagement_events_campaign" ON "engagement_events"  ("tenant_id", "environment", "campaign_id", "type") `,
    );
    await queryRunner.query(`CREATE INDEX "ix_engagement_events_message" ON "engagement_events"  ("tenant_id", "message_id", "type") `);
    await queryRunner.query(
      `CREATE TABLE "messages" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "channel" character varying(8) NOT NULL, "to_address" character varying(320) NOT NULL, "subject" character varying(300), "body" text NOT NULL, "status" character varying(8) NOT NULL DEFAULT 'queued', "sandbox" boolean NOT NULL DEFAULT false, "marketing" boolean NOT NULL DEFAULT false, "lead_id" bigint, "campaign_id" bigint, "opportunity_id" bigint, "idempotency_key" character varying(200) NOT NULL, "provider_message_id" character varying(300), "provider_attempted_at" TIMESTAMP WITH TIME ZONE, "sent_at" TIMESTAMP WITH TIME ZONE, "error" character varying(1000), CONSTRAINT "PK_18325f38ae6de43878487eff986" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_ec8e283f5a9c5fa59dc25602b8" ON "messages"  ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_messages_scope_lead" ON "messages"  ("tenant_id", "environment", "lead_id") `);
    await queryRunner.query(`CREATE INDEX "ix_messages_scope_campaign" ON "messages"  ("tenant_id", "environment", "campaign_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_messages_idempotency" ON "messages"  ("tenant_id", "idempotency_key") `);
    await queryRunner.query(`ALTER TABLE "leads" ADD "unsubscribed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "leads" ADD "bounced_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN "bounced_at"`);
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN "unsubscribed_at"`);
    await queryRunner.query(`DROP INDEX "public"."uq_messages_idempotency"`);
    await queryRunner.query(`DROP INDEX "public"."ix_messages_scope_campaign"`);
    await queryRunner.query(`DROP INDEX "public"."ix_messages_scope_lead"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_ec8e283f5a9c5fa59dc25602b8"`);
    await queryRunner.query(`DROP TABLE "messages"`);
    await queryRunner.query(`DROP INDEX "public"."ix_engagement_events_message"`);
    await queryRunner.query(`DROP INDEX "public"."ix_engagement_events_campaign"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_868bbe5ce8b595ad34892870cb"`);
    await queryRunner.query(`DROP TABLE "engagement_events"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_ae36a1426302c744ec5819df0f"`);
    await queryRunner.query(`DROP TABLE "email_templates"`);
    await queryRunner.query(`DROP INDEX "public"."uq_campaign_enrollments_lead"`);
    await queryRunner.query(`DROP INDEX "public"."ix_campaign_enrollments_lead"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_0884cc0ad930c5b95756318049"`);
    await queryRunner.query(`DROP TABLE "campaign_enrollments"`);
    await queryRunner.query(`DROP INDEX "public"."ix_campaigns_scope_trigger"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_48cd6c6f603e1d4c3805eb1f49"`);
    await queryRunner.query(`DROP TABLE "campaigns"`);
  }
}
