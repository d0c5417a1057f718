import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleted files' bytes still to be removed from storage (db/entities/file-removal.ts,
 * domain/file-removals.ts). Before, a removal that failed after the delete's commit was only
 * logged, and the bytes stayed stored for good.
 */
export class AddFileRemovals1796110000000 implements MigrationInterface {
  name = 'AddFileRemovals1796110000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "file_removals" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "file_id" bigint NOT NULL, "remove_after" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_3927d978479472869d0380e605f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_file_removals_due" ON "file_removals"  ("remove_after") `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_file_removals_due"`);
    await queryRunner.query(`DROP TABLE "file_removals"`);
  }
}
