import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { encodeId } from '../../lib/ids';

/** The vector before: the title's words at weight A, the body's at B, as written. */
const VECTOR_BEFORE = `setweight(to_tsvector('simple'::regconfig, title), 'A') || setweight(to_tsvector('simple'::regconfig, body), 'B')`;
/** The vector SearchDocument declares: the same words without their accents, and the document's phone key. */
const VECTOR = `setweight(to_tsvector('simple_unaccent'::regconfig, title), 'A') || setweight(to_tsvector('simple_unaccent'::regconfig, body), 'B') || search_phone_key(data ->> 'phone')`;

/** Leads re-indexed per statement: one batch's IDs are encoded here, the rest happens in PostgreSQL. */
const BATCH = 5000;

/** A lead document's text as domain/search-index.ts writes it (searchText), frozen here: emails also count as their parts. */
const emailParts = (text: string) => String.raw`regexp_replace(${text}, '([^\s@]+)@([^\s@]+)', '\1@\2 \1 \2', 'g')`;
const TITLE = emailParts(`l.first_name || ' ' || l.last_name || ' ' || l.email`);
/** The text leaves of the lead's custom fields (strings, numbers, booleans; nulls have none). */
const CUSTOM_VALUES = String.raw`(SELECT string_agg(v #>> '{}', ' ') FROM jsonb_path_query(l.custom_fields,
  'strict $.** ? (@.type() == "string" || @.type() == "number" || @.type() == "boolean")') v)`;

/** What a lead's document holds, with its custom fields (up) or without them (down, as before). */
function leadDocument(withCustomFields: boolean) {
  const fields = `'email', l.email, 'firstName', l.first_name, 'lastName', l.last_name, 'phone', l.phone, 'status', l.status, 'source', l.source`;
  return {
    data: `jsonb_build_object(${fields}${withCustomFields ? `, 'customFields', l.custom_fields` : ''})`,
    body: emailParts(`concat_ws(' ', l.phone, l.status, l.source${withCustomFields ? `, ${CUSTOM_VALUES}` : ''})`),
  };
}

/**
 * Rewrites every existing lead document from its lead's row, as a re-index would (a document
 * posted for a lead is replaced, as the lead's next change replaces it), keyset-paginated over the
 * leads. A document's ID is the lead's public ID, which only the application can compute (hashids
 * keyed by ID_SECRET), so each batch's IDs are encoded here and one UPDATE per batch does the rest.
 * A lead without a document (an import whose index step has not run yet) gets none.
 */
async function reindexLeadDocuments(queryRunner: QueryRunner, withCustomFields: boolean): Promise<void> {
  const { data, body } = leadDocument(withCustomFields);
  let after = '0';
  for (;;) {
    const leads: { id: string }[] = await queryRunner.query(`SELECT id::text FROM leads WHERE id > $1 ORDER BY id LIMIT ${BATCH}`, [after]);
    if (!leads.length) return;
    after = leads[leads.length - 1].id;
    await queryRunner.query(
      `UPDATE search_documents d SET data = ${data}, title = ${TITLE}, body = ${body}, updated_at = now()
         FROM unnest($1::bigint[], $2::varchar[]) AS m(lead_id, doc_id) JOIN leads l ON l.id = m.lead_id
        WHERE d.tenant_id = l.tenant_id AND d.environment = l.environment AND d.doc_type = 'lead' AND d.doc_id = m.doc_id`,
      [leads.map((l) => l.id), leads.map((l) => encodeId('lead', l.id))],
    );
  }
}

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
 * Search ignores accents, finds a phone number by its last digits, and finds a lead by its custom
 * field values (docs/decisions.md, "Search"):
 * - `simple_unaccent`: the `simple` configuration with the `unaccent` dictionary (contrib, trusted
 *   since PostgreSQL 13) in front of it for words with letters beyond ASCII; ASCII words take the
 *   plain path, so a document without accents costs what it did.
 * - `search_phone_key(phone)`: one lexeme per phone, `#` and its digits reversed (without a `(0)`
 *   trunk digit or leading zeros), weight A. A phone query is a prefix of it when the phone ends
 *   with the query's digits. No word of a query or a document starts with `#`, so only a phone
 *   query reaches it.
 * - `search_fold(text)`: lower case without accents, for the substring filter of GET /v1/leads?q=.
 * - Lead documents hold their custom fields: the stored ones are rewritten while the vector column
 *   is gone (no vector or GIN entry per update). Then the column is added back: one rewrite of the
 *   table computes every document's vector anew, and the GIN index is built once. The table is
 *   locked meanwhile.
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
    // Stable, as unaccent is: PostgreSQL inlines it into a query (a function call per row cost the
    // substring filter of GET /v1/leads?q= twice the unaccent itself).
    await queryRunner.query(
      `CREATE FUNCTION search_fold(value text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
        RETURN lower(${schema}.unaccent('${schema}.unaccent'::regdictionary, value))`,
    );
    await queryRunner.dropColumn('search_documents', 'tsv'); // and its GIN index
    await reindexLeadDocuments(queryRunner, true);
    await addVector(queryRunner, VECTOR);
  }

  /** Back to the plain vector and lead documents without custom fields. The extension stays: others may use it. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('search_documents', 'tsv');
    await reindexLeadDocuments(queryRunner, false);
    await addVector(queryRunner, VECTOR_BEFORE);
    await queryRunner.query(`DROP FUNCTION search_fold(text)`);
    await queryRunner.query(`DROP FUNCTION search_phone_key(text)`);
    await queryRunner.query(`DROP TEXT SEARCH CONFIGURATION simple_unaccent`);
  }
}
