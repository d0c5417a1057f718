import type { MigrationInterface, QueryRunner } from 'typeorm';
import { transliteratedSql } from '../../lib/search-spellings';
import { inIdBatches, inTransaction } from './batched-steps';

/** Leads filled in per statement: each UPDATE holds their row locks only so long. */
const BATCH = 5000;

/**
 * The text of a lead that `GET /v1/leads?q=` compares, as one string: name and email, phone,
 * custom field values (as JSON: `jsonb_each_text` is a set function, which a trigger's expression
 * cannot call for free), folded by search_fold, and when it has umlauts the same folded again with
 * them transliterated (`ü` as `ue`). domain/leads/leads.ts reads it as a filter every match passes.
 */
const RAW = `NEW.first_name || ' ' || NEW.last_name || E'\\n' || NEW.email_normalized || E'\\n' || coalesce(NEW.phone, '') || E'\\n'
    || jsonb_path_query_array(NEW.custom_fields, '$.*')::text`;

/**
 * `leads.search_text`, kept by a trigger on every insert and on every update of the columns it is
 * made of. Before it, each `q` folded the name, email and each custom field value of every lead of
 * the scope (about 10 µs a lead: 3 s at 300,000 leads, past the API's statement timeout with a
 * German spelling); reading the stored text costs under 1 µs a lead. A trigger rather than a
 * generated column: adding a generated column rewrites the table under an exclusive lock, and a
 * trigger keeps it right whoever writes the row (imports, merges, an old API during a deploy).
 * Existing leads are filled in keyset batches outside a transaction, as SearchGermanSpellings
 * rewrites documents: an `UPDATE ... SET search_text = NULL` the trigger fills. search_fold is named
 * with its schema, since a trigger runs with the search_path of the session that writes.
 */
export class AddLeadSearchText1796100000000 implements MigrationInterface {
  name = 'AddLeadSearchText1796100000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    const [{ schema }] = (await queryRunner.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.proname = 'search_fold'`,
    )) as { schema: string }[];
    await inTransaction(queryRunner, () => this.addTrigger(queryRunner, schema));
    await inIdBatches(queryRunner, 'leads', BATCH, (after, last) =>
      queryRunner.query(`UPDATE leads SET search_text = NULL WHERE id > $1 AND id <= $2 AND search_text IS NULL`, [after, last]),
    );
  }

  /** The column, empty, and the trigger that writes it from now on. */
  private async addTrigger(queryRunner: QueryRunner, schema: string): Promise<void> {
    await queryRunner.query(`ALTER TABLE "leads" ADD COLUMN IF NOT EXISTS "search_text" text`);
    await queryRunner.query(`CREATE OR REPLACE FUNCTION leads_search_text() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  raw text := ${RAW};
  transliterated text := ${transliteratedSql('raw')};
BEGIN
  NEW.search_text := ${schema}.search_fold(raw) || CASE WHEN transliterated <> raw THEN E'\\n' || ${schema}.search_fold(transliterated) ELSE '' END;
  RETURN NEW;
END $$`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_search_text ON "leads"`);
    await queryRunner.query(`CREATE TRIGGER leads_search_text BEFORE INSERT OR UPDATE OF first_name, last_name, email_normalized, phone, custom_fields, search_text
      ON "leads" FOR EACH ROW EXECUTE FUNCTION leads_search_text()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS leads_search_text ON "leads"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS leads_search_text()`);
    await queryRunner.query(`ALTER TABLE "leads" DROP COLUMN IF EXISTS "search_text"`);
  }
}
