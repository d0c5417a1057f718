import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The vector before: the title's words at weight A, the body's at B, as written. */
const VECTOR_BEFORE = `setweight(to_tsvector('simple'::regconfig, title), 'A') || setweight(to_tsvector('simple'::regconfig, body), 'B')`;
/** The vector SearchDocument declares: the same words without their accents, and the document's phone key. */
const VECTOR = `setweight(to_tsvector('simple_unaccent'::regconfig, title), 'A') || setweight(to_tsvector('simple_unaccent'::regconfig, body), 'B') || search_phone_key(data ->> 'phone')`;

/** Replaces the vector column (and its GIN index) with one of `expression`: one rewrite of the table computes every vector. */
async function addVector(queryRunner: QueryRunner, expression: string): Promise<void> {
  // Through the query runner, which also records the expression where TypeORM's schema diff reads it.
  await queryRunner.addColumn(
    'search_documents',
    new TableColumn({ name: 'tsv', type: 'tsvector', isNullable: true, generatedType: 'STORED', asExpression: expression }),
  );
  await queryRunner.query(`CREATE INDEX "ix_search_documents_tsv" ON "search_documents" USING GIN ("tsv")`);
}

/**
 * Search ignores accents and finds a phone number by its last digits (docs/decisions.md, "Search"):
 * - `simple_unaccent`: the `simple` configuration with the `unaccent` dictionary (contrib, trusted
 *   since PostgreSQL 13) in front of it for words with letters beyond ASCII; ASCII words take the
 *   plain path, so a document without accents costs what it did.
 * - `search_phone_key(phone)`: one lexeme per phone, `#` and its digits reversed (without a `(0)`
 *   trunk digit or leading zeros), weight A. A phone query is a prefix of it when the phone ends
 *   with the query's digits. No word of a query or a document starts with `#`, so only a phone
 *   query reaches it.
 * The vector column is added back with the new expression: one rewrite of the table computes every
 * stored document's vector anew, and the GIN index is built once. The table is locked meanwhile.
 */
export class SearchAccentsPhonesAndCustomFields1796020000000 implements MigrationInterface {
  name = 'SearchAccentsPhonesAndCustomFields1796020000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS unaccent`);
    // Wherever the extension lives (it may have been installed before, in another schema).
    const [{ schema }] = await queryRunner.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent'`,
    );
    await queryRunner.query(`CREATE TEXT SEARCH CONFIGURATION simple_unaccent (COPY = pg_catalog.simple)`);
    await queryRunner.query(
      `ALTER TEXT SEARCH CONFIGURATION simple_unaccent ALTER MAPPING FOR word, hword, hword_part, numword, numhword, hword_numpart
         WITH ${schema}.unaccent, pg_catalog.simple`,
    );
    // Immutable, as a generated column needs; its body is bound when created (no search_path at run time).
    await queryRunner.query(
      String.raw`CREATE FUNCTION search_phone_key(phone text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN coalesce(('''#' || left(reverse(nullif(ltrim(regexp_replace(replace(phone, '(0)', ''), '[^0-9]', '', 'g'), '0'), '')), 32)
          || ''':1A')::tsvector, ''::tsvector)`,
    );
    await queryRunner.dropColumn('search_documents', 'tsv'); // and its GIN index
    await addVector(queryRunner, VECTOR);
  }

  /** Back to the plain vector. The extension stays: others may use it. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('search_documents', 'tsv');
    await addVector(queryRunner, VECTOR_BEFORE);
    await queryRunner.query(`DROP FUNCTION search_phone_key(text)`);
    await queryRunner.query(`DROP TEXT SEARCH CONFIGURATION simple_unaccent`);
  }
}
