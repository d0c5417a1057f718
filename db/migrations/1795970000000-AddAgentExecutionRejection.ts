import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An execution waiting for approval can be rejected; the pending queue is listed and counted by its own index. */
export class AddAgentExecutionRejection1795970000000 implements MigrationInterface {
  name = 'AddAgentExecutionRejection1795970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "agent_executions" ADD "rejected_by" bigint`);
    await queryRunner.query(`ALTER TABLE "agent_executions" ADD "rejected_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "ix_agent_executions_scope_pending" ON "agent_executions" ("tenant_id", "environment", "created_at") WHERE approval_status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_agent_executions_scope_pending"`);
    await queryRunner.query(`ALTER TABLE "agent_executions" DROP COLUMN "rejected_at"`);
    await queryRunner.query(`ALTER TABLE "agent_executions" DROP COLUMN "rejected_by"`);
  }
}
