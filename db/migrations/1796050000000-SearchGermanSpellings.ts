import type { MigrationInterface, QueryRunner } from 'typeorm';
import { withSpellings } from '../../lib/search-spellings';

/** Documents rewritten per statement: each UPDATE holds their row locks (and writes their GIN entries) only so long. */
const BATCH = 1000;

/**
 * The documents whose text may have other spellings (the quick test of withSpellings, in SQL): a
 * letter beyond ASCII (more bytes than characters) or an ae, oe or ue.
 */
const MAY_HAVE_SPELLINGS = `(octet_length(title || body) <> char_length(title || body) OR title || body ~* '[aou]e')`;

/**
 * Stored documents get the other spellings of their words (lib/search-spellings.ts), as the
 * writers now append them: a Müller's document is also found by `Mueller`, a Mueller's by
 * `Muller` (docs/decisions.md, "Search"). The appended words follow from the stored title and body
 * alone, so every document is rewritten where it is, leads, partners and posted documents alike,
 * and the vector column (generated from title and body) stays as it is.
 *
 * Outside a transaction, in keyset batches of the documents that may have spellings: each batch's
 * UPDATE commits on its own, so writers wait for one batch at most, never for the table. A batch
 * leaves a document a writer replaced since it was read (title and body no longer as read); that
 * writer wrote it with its spellings, or, still running the code before, without them until the
 * document is written again. Run again after a failure, it completes what is left: text that holds
 * its spellings has none to add.
 */
export class SearchGermanSpellings1796050000000 implements MigrationInterface {
  name = 'SearchGermanSpellings1796050000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    let after = '0';
    for (;;) {
      const docs: { id: string; title: string; body: string }[] = await queryRunner.query(
        `SELECT id::text, title, body FROM search_documents WHERE id > $1 AND ${MAY_HAVE_SPELLINGS} ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      if (!docs.length) return;
      after = docs[docs.length - 1].id;
      const changed = docs
        .map((d) => ({ ...d, newTitle: withSpellings(d.title), newBody: withSpellings(d.body) }))
        .filter((d) => d.newTitle !== d.title || d.newBody !== d.body);
      if (!changed.length) continue;
      await queryRunner.query(
        `UPDATE search_documents d SET title = m.new_title, body = m.new_body, updated_at = now()
           FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[]) AS m(id, title, body, new_title, new_body)
          WHERE d.id = m.id AND d.title = m.title AND d.body = m.body`,
        [
          changed.map((d) => d.id),
          changed.map((d) => d.title),
          changed.map((d) => d.body),
          changed.map((d) => d.newTitle),
          changed.map((d) => d.newBody),
        ],
      );
    }
  }

  /**
   * Nothing to undo: the appended spellings are words the code before indexes and looks for like
   * any other (a Müller's document keeps being found by `Mueller` until it is written again), and
   * which words were appended cannot be told from the text (a document may hold `Müller Mueller`
   * of its own).
   */
  async down(): Promise<void> {}
}
