import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The webhook-history purge takes the oldest events first, without reading the whole table. */
export class AddEventsCreatedIndex1796010000000 implements MigrationInterface {
  name = 'AddEventsCreatedIndex1796010000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_events_created" ON "events" ("created_at")`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_events_created"`);
  }
}
