import { LeadIdentity, type Lead } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import { config } from '../../lib/config';
import { dedupeKeys } from './dedupe-keys';

/**
 * Duplicate clusters are stored as membership: one `lead_identities` row per (key, lead), where a
 * key is a normalised email (`e:<email>`) or phone (`p:<digits>`). Adding a lead adds one row per
 * key whatever the size of its cluster, and locks nothing but its own rows; a lead's duplicates are
 * read from the rows of its keys. (Before, each check wrote a pair row in both directions for
 * every earlier match, one statement at a time: quadratic, and the transactions convoyed.)
 */

export type DuplicateReason = 'email' | 'phone';

const reasonOf = (key: string): DuplicateReason => (key.startsWith('e:') ? 'email' : 'phone');

/** Inserts the lead's identity rows (the caller's `where` guards them, e.g. on the lead being written). */
export function addIdentitiesSql(q: ScopedSqlBuilder, leadId: string, keys: string[], opts: { where?: string } = {}): string {
  const [tenant, environment] = q.scopeValues();
  return `INSERT INTO ${q.table(LeadIdentity)} (tenant_id, environment, key, lead_id)
    SELECT ${tenant}, ${environment}, k, ${q.value(leadId)}::bigint
      FROM unnest(${q.value(keys)}::varchar[]) k${opts.where ? ` WHERE ${opts.where}` : ''}
    ON CONFLICT DO NOTHING`;
}

/**
 * Makes the lead's identity rows match its current email and phone (after a PATCH or a merge, or
 * for a lead written without them): drops the keys it no longer has, adds the new ones.
 */
export async function syncIdentities(data: ScopedData, lead: Pick<Lead, 'id' | 'emailNormalized' | 'phoneNormalized'>): Promise<void> {
  const keys = dedupeKeys(lead);
  await data.sql(
    (q) => `WITH gone AS (${q.deleteFrom(LeadIdentity, `lead_id = ${q.value(lead.id)} AND key <> ALL(${q.value(keys)}::varchar[])`)})
    ${addIdentitiesSql(q, lead.id, keys)}`,
  );
}

/** With the lead (deleted, or merged into another): it leaves its clusters. */
export async function deleteIdentities(data: ScopedData, leadId: string): Promise<void> {
  await data.sql((q) => q.deleteFrom(LeadIdentity, `lead_id = ${q.value(leadId)}`));
}

/**
 * SQL: the keys among `keysParam` (a varchar[] placeholder) that at least `threshold` leads have
 * already, so a lead that adds itself makes them common. Counting stops at the threshold, so the
 * cost does not grow with the cluster, and reading takes no lock. The keys the statement has just
 * claimed (`claimed`, the name of its part that returns them) are skipped: no lead had them, so
 * none is common, and a create whose keys are all new (the usual case) looks up none.
 */
export function commonKeysSql(
  q: ScopedSqlBuilder,
  keysParam: string,
  claimed: string,
  threshold = config.DEDUPE_COMMON_IDENTITY_LEADS,
): string {
  const [tenant, environment] = q.scopeValues();
  return `SELECT k AS key FROM unnest(${keysParam}::varchar[]) k
    WHERE k NOT IN (SELECT key FROM ${claimed}) AND (SELECT count(*) FROM (SELECT 1 FROM ${q.table(LeadIdentity)} c WHERE c.tenant_id = ${tenant}
      AND c.environment = ${environment} AND c.key = k LIMIT ${q.value(threshold)}::int) n) >= ${q.value(threshold)}::int`;
}

export interface LeadDuplicates {
  /** Other leads sharing a key with the lead that is not common, with the kinds of key they share. */
  duplicates: { leadId: string; reasons: DuplicateReason[] }[];
  /** The lead's keys that more than the threshold of leads share: they suggest no duplicates. */
  commonKeys: DuplicateReason[];
}

/** The other leads that share a key with the lead, in lead order; common keys are left out and named. */
export async function findDuplicates(
  data: ScopedData,
  leadId: string,
  threshold = config.DEDUPE_COMMON_IDENTITY_LEADS,
): Promise<LeadDuplicates> {
  const keyed = await data.sql<{ key: string; common: boolean }>((q) => {
    const limit = q.value(threshold);
    return `SELECT i.key, (SELECT count(*) FROM (SELECT 1 FROM ${q.table(LeadIdentity)} c WHERE c.tenant_id = i.tenant_id AND c.environment = i.environment
              AND c.key = i.key LIMIT ${limit}::int + 1) n) > ${limit}::int AS common
       FROM ${q.table(LeadIdentity)} i WHERE ${q.scope('i')} AND i.lead_id = ${q.value(leadId)} ORDER BY i.key`;
  });
  const shared = keyed.filter((k) => !k.common).map((k) => k.key);
  const commonKeys = keyed.filter((k) => k.common).map((k) => reasonOf(k.key));
  if (!shared.length) return { duplicates: [], commonKeys };
  const rows = await data.sql<{ lead_id: string; keys: string[] }>(
    (q) => `SELECT o.lead_id::text, array_agg(o.key ORDER BY o.key) AS keys FROM ${q.table(LeadIdentity)} o
      WHERE ${q.scope('o')} AND o.key = ANY(${q.value(shared)}::varchar[]) AND o.lead_id <> ${q.value(leadId)}
      GROUP BY o.lead_id ORDER BY o.lead_id`,
  );
  return { duplicates: rows.map((r) => ({ leadId: r.lead_id, reasons: r.keys.map(reasonOf) })), commonKeys };
}
