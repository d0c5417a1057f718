import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enrollments by workflow ID: an engagement event that names its enrollment (`workflowExecutionId`,
 * domain/engagement/record-engagement.ts) looked it up through the scope's index, reading every
 * enrollment of the tenant for each event. With this one it reads the one it names.
 *
 * Built CONCURRENTLY, as AddOpportunitiesStageIndex1796040000000, so enrollments go on being
 * written while a large table is indexed (hence `transaction = false`; the drop before it clears
 * an invalid index a failed build left). `down` runs in the revert's transaction, without
 * CONCURRENTLY.
 */
/**
 * The index of the scope alone goes: the table's other two indexes of the scope lead with it, and
 * on a table that grew faster than its statistics a generic plan took it over this one, as exact
 * (one row) by the scope alone (the enrollment-lookup-plan test). One index fewer to write per
 * enrollment, too.
 */
const SCOPE_INDEX = 'IDX_0884cc0ad930c5b95756318049';

export class AddEnrollmentsWorkflowIndex1796080000000 implements MigrationInterface {
  name = 'AddEnrollmentsWorkflowIndex1796080000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."ix_campaign_enrollments_workflow"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY "ix_campaign_enrollments_workflow" ON "campaign_enrollments" ("tenant_id", "environment", "workflow_id")`,
    );
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "public"."${SCOPE_INDEX}"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "${SCOPE_INDEX}" ON "campaign_enrollments" ("tenant_id", "environment")`);
    await queryRunner.query(`DROP INDEX "public"."ix_campaign_enrollments_workflow"`);
  }
}
