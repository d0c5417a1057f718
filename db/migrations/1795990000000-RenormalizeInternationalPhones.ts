import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The phone rule of domain/normalize.ts as of this migration, in SQL (frozen here: a later change
 * of the function brings its own migration). `(0)` after the country code is dropped, and a leading
 * `00` loses its two zeros: `+44 (0)20 7946 0958` and `0044 20 7946 0958` are `442079460958`, as
 * `+44 20 7946 0958` is. `[0-9]`, not `\d`: JavaScript's `\d` is ASCII only.
 */
const CURRENT = String.raw`regexp_replace(
    regexp_replace(phone, '^(\s*(\+|00)?[\s./-]*[0-9]{1,3}[\s./-]*)\(0\)', '\1'), '[^0-9]', '', 'g')`;
/** The rule before: digits only. */
const BEFORE = String.raw`regexp_replace(phone, '[^0-9]', '', 'g')`;
const CURRENT_NUMBER = String.raw`CASE WHEN phone ~ '^\s*00' THEN substr(${CURRENT}, 3) ELSE ${CURRENT} END`;
/** Only phones with a `(0)` or a leading `00` normalise differently under the two rules. */
const AFFECTED = String.raw`(phone LIKE '%(0)%' OR phone ~ '^\s*00')`;

/**
 * Gives the affected leads the phone key `number` computes, in one statement (a scan of leads and
 * writes for the affected ones only, whatever the table's size): the lead's phone cluster row
 * (`lead_identities`) moves to the new key; the new key is claimed (`lead_dedupe_keys`) unless a
 * lead has claimed it already, whose claim stays (the oldest changed lead claims a key no lead
 * had); claims of the old key stay, as every claim does (a later lead with that key gets the full
 * check, nothing worse). The leads are marked unchecked, so the lead-dedupe sweep checks them again.
 */
async function rekeyPhones(queryRunner: QueryRunner, number: string): Promise<void> {
  await queryRunner.query(
    `WITH renormalized AS (
       SELECT id, phone_normalized AS old, CASE WHEN length(n) >= 5 THEN n END AS new
         FROM (SELECT id, phone_normalized, ${number} AS n FROM leads WHERE ${AFFECTED}) l
     ), changed AS (
       UPDATE leads l SET phone_normalized = r.new, duplicates_checked_at = NULL
         FROM renormalized r WHERE l.id = r.id AND r.new IS DISTINCT FROM r.old
       RETURNING l.id, l.tenant_id, l.environment, r.old, r.new
     ), left_cluster AS (
       DELETE FROM lead_identities i USING changed c
        WHERE i.tenant_id = c.tenant_id AND i.environment = c.environment AND i.key = 'p:' || c.old AND i.lead_id = c.id
     ), joined_cluster AS (
       INSERT INTO lead_identities (tenant_id, environment, key, lead_id)
       SELECT tenant_id, environment, 'p:' || new, id FROM changed WHERE new IS NOT NULL
       ON CONFLICT DO NOTHING
     )
     INSERT INTO lead_dedupe_keys (tenant_id, environment, key, lead_id)
     SELECT DISTINCT ON (tenant_id, environment, key) tenant_id, environment, key, id
       FROM (SELECT tenant_id, environment, 'p:' || new AS key, id FROM changed WHERE new IS NOT NULL) k
      ORDER BY tenant_id, environment, key, id
     ON CONFLICT DO NOTHING`,
  );
}

/** docs/decisions.md, "Phone numbers with `00` or `(0)`". */
export class RenormalizeInternationalPhones1795990000000 implements MigrationInterface {
  name = 'RenormalizeInternationalPhones1795990000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await rekeyPhones(queryRunner, CURRENT_NUMBER);
  }

  /**
   * The old keys follow from the stored phones (digits only), so they are restored, and the leads
   * checked again under the old rule. The claims of the new keys stay: claims are never deleted,
   * and one no lead has costs a later lead with that key a check that finds nothing.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    await rekeyPhones(queryRunner, BEFORE);
  }
}
