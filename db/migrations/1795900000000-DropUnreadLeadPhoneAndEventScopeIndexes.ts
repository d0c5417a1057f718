import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two indexes no query reads, each a write on every lead create:
 * - `ix_leads_scope_phone`: duplicates are found through `lead_identities` (a row per normalised
 *   email and phone), and no list filters or sorts by phone. The planner did pick it once, wrongly,
 *   for an import's lookup of existing emails (domain/leads/import-chunk.ts).
 * - the plain (tenant_id, environment) index of `events`: outbox events are read by ID (relay,
 *   deliveries) or through the partial index of undispatched ones (the sweep), never by scope.
 */
export class DropUnreadLeadPhoneAndEventScopeIndexes1795900000000 implements MigrationInterface {
  name = 'DropUnreadLeadPhoneAndEventScopeIndexes1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_leads_scope_phone"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_513170e5aa532adf5d22dbb85a"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "IDX_513170e5aa532adf5d22dbb85a" ON "events" USING btree ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE INDEX "ix_leads_scope_phone" ON "leads" USING btree ("tenant_id", "environment", "phone_normalized") `);
  }
}
