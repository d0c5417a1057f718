import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The same rule as inferEmailFormat (a complete tag), in PostgreSQL's regex syntax. Applied once, to
 * what authors wrote; rows of messages already rendered get it from their body (the best there is).
 */
const HAS_TAG = `'</?[a-z][^<>]*>'`;
const formatOf = (column: string) => `CASE WHEN ${column} ~* ${HAS_TAG} THEN 'html' ELSE 'text' END`;

/** Email nodes with a body and no format get the inferred one, in one pass over each table. */
const fillNodeFormats = (table: string) => `
  UPDATE "${table}" d SET "nodes" = (
    SELECT jsonb_agg(
      CASE WHEN n->>'type' = 'email' AND n->'data' ? 'body' AND NOT n->'data' ? 'format'
        THEN jsonb_set(n, '{data,format}', to_jsonb(${formatOf(`n->'data'->>'body'`)}))
        ELSE n END
      ORDER BY i)
    FROM jsonb_array_elements(d."nodes") WITH ORDINALITY AS e(n, i))
  WHERE jsonb_path_exists(d."nodes", '$[*] ? (@.type == "email" && exists(@.data.body) && !exists(@.data.format))')`;

export class AddEmailFormats1795352000000 implements MigrationInterface {
  name = 'AddEmailFormats1795352000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "email_templates" ADD "format" character varying(4) NOT NULL DEFAULT 'text'`);
    await queryRunner.query(`UPDATE "email_templates" SET "format" = 'html' WHERE "body" ~* ${HAS_TAG}`);
    await queryRunner.query(`ALTER TABLE "email_templates" ALTER COLUMN "format" DROP DEFAULT`);
    await queryRunner.query(`ALTER TABLE "messages" ADD "format" character varying(4) NOT NULL DEFAULT 'text'`);
    await queryRunner.query(`ALTER TABLE "messages" ADD "tracked_links" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`UPDATE "messages" SET "format" = 'html' WHERE "channel" = 'email' AND "body" ~* ${HAS_TAG}`);
    await queryRunner.query(fillNodeFormats('workflow_definitions'));
    await queryRunner.query(fillNodeFormats('workflow_definition_versions'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "tracked_links"`);
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "format"`);
    await queryRunner.query(`ALTER TABLE "email_templates" DROP COLUMN "format"`);
  }
}
