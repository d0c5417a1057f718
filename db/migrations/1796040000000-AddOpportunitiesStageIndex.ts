import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Opportunities by stage: the in-use check of an opportunity stage's delete, or of a change of its
 * code or closed and won flags (domain/status-definitions.ts, `usesCountSql`), reads the stage's
 * deals up to 10,000 instead of every deal of the scope. No index of `opportunities` served it:
 * the scope's ones go on with `created_at`, none with the stage.
 *
 * Built CONCURRENTLY, as AddLeadsStatusIndex1796030000000, so deals go on being written while a
 * large table is indexed; that cannot run inside a transaction, hence `transaction = false`. A
 * build that failed half-way leaves an invalid index of the same name behind, which the drop
 * before it clears. `down` runs in the revert's transaction (TypeORM always gives one), so it
 * drops without CONCURRENTLY.
 */
export class AddOpportunitiesStageIndex1796040000000 implements MigrationInterface {
  name = 'AddOpportunitiesStageIndex1796040000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_opportunities_scope_stage"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_opportunities_scope_stage" ON "opportunities" ("tenant_id", "environment", "stage_id")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_opportunities_scope_stage"`);
  }
}
