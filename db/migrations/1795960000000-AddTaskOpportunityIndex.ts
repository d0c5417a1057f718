import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `GET /v1/tasks?opportunityId=`: a deal's tasks, as `leadId` finds a lead's (most tasks name no deal). */
export class AddTaskOpportunityIndex1795960000000 implements MigrationInterface {
  name = 'AddTaskOpportunityIndex1795960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_tasks_scope_opportunity" ON "tasks" ("tenant_id", "environment", "opportunity_id") WHERE opportunity_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_tasks_scope_opportunity"`);
  }
}
