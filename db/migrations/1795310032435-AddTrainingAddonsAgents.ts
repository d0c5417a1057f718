import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The global addon catalog: [slug, name, description, category, version, pricing type, monthly price]. */
const ADDON_SEED: [string, string, string, string, string, string, number][] = [
  [
    'email-warmup',
    'Email Warm-up',
    'Gradually raises sending volume on new mailboxes to protect deliverability.',
    'email',
    '1.4.0',
    'subscription',
    29,
  ],
  [
    'lead-enrichment',
    'Lead Enrichment',
    'Fills in company size, industry and job title for new leads from public sources.',
    'data',
    '2.1.3',
    'subscription',
    49,
  ],
  [
    'sms-gateway',
    'SMS Gateway',
    'Two-way SMS for campaign steps and reminders through your own sender numbers.',
    'messaging',
    '1.0.2',
    'usage',
    0,
  ],
  [
    'calendar-sync',
    'Calendar Sync',
    'Syncs meeting tasks with Google and Microsoft calendars in both directions.',
    'productivity',
    '3.0.0',
    'free',
    0,
  ],
  [
    'partner-portal-branding',
    'Partner Portal Branding',
    'Custom domain, logo and colours for the partner portal.',
    'partners',
    '1.2.0',
    'subscription',
    19,
  ],
  [
    'ai-call-summaries',
    'AI Call Summaries',
    'Transcribes logged calls and writes a summary and next steps onto the lead.',
    'ai',
    '0.9.1',
    'subscription',
    79,
  ],
];

export class AddTrainingAddonsAgents1795310032435 implements MigrationInterface {
  name = 'AddTrainingAddonsAgents1795310032435';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "addons" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "slug" character varying(60) NOT NULL, "name" character varying(100) NOT NULL, "description" text NOT NULL, "category" character varying(40) NOT NULL, "version" character varying(20) NOT NULL, "pricing_type" character varying(20) NOT NULL, "monthly_price" numeric(10,2) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_cd49fb3dc0558f02cb6fe6cc138" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_addons_slug" ON "addons"  ("slug") `);
    await queryRunner.query(
      `CREATE TABLE "addon_installations" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "addon_id" bigint NOT NULL, "status" character varying(12) NOT NULL, "config" jsonb NOT NULL DEFAULT '{}', "installed_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_5ad525f95ce38321a1bd66f3241" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_d3fe46eaaf78fc614ca80a14bb" ON "addon_installations"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_addon_installations_addon" ON "addon_installations"  ("tenant_id", "environment", "addon_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "agent_executions" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "agent" character varying(20) NOT NULL, "outcome" character varying(10) NOT NULL, "accepted" boolean, "approval_status" character varying(12) NOT NULL DEFAULT 'not_required', "approved_by" bigint, "approved_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_1be5b595730621debe308ad2c6d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_91d43b47022b59734a799d0073" ON "agent_executions"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_agent_executions_scope_created" ON "agent_executions"  ("tenant_id", "environment", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "training_courses" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "title" character varying(200) NOT NULL, "description" text, "status" character varying(10) NOT NULL DEFAULT 'draft', "modules_count" integer NOT NULL DEFAULT '0', "enrollment_count" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_13bbeecb2ed8a1f45be3c02d68e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_9c3cdd691a2d8d9781c5fb3476" ON "training_courses"  ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE INDEX "ix_training_courses_scope_created" ON "training_courses"  ("tenant_id", "environment", "created_at") `,
    );
    await queryRunner.query(
      `INSERT INTO "addons" ("slug", "name", "description", "category", "version", "pricing_type", "monthly_price") VALUES ${ADDON_SEED.map(
        (a) => `(${a.map((v) => (typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)).join(', ')})`,
      ).join(', ')}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "addons" WHERE "slug" IN (${ADDON_SEED.map((a) => `'${a[0]}'`).join(', ')})`);
    await queryRunner.query(`DROP INDEX "public"."ix_training_courses_scope_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_9c3cdd691a2d8d9781c5fb3476"`);
    await queryRunner.query(`DROP TABLE "training_courses"`);
    await queryRunner.query(`DROP INDEX "public"."ix_agent_executions_scope_created"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_91d43b47022b59734a799d0073"`);
    await queryRunner.query(`DROP TABLE "agent_executions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_addon_installations_addon"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_d3fe46eaaf78fc614ca80a14bb"`);
    await queryRunner.query(`DROP TABLE "addon_installations"`);
    await queryRunner.query(`DROP INDEX "public"."uq_addons_slug"`);
    await queryRunner.query(`DROP TABLE "addons"`);
  }
}
