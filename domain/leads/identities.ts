import type { Lead } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { managerOf, type ScopedData } from '../../db/scoped-data';
import { Params } from '../../db/sql';
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

export const reasonOf = (key: string): DuplicateReason => (key.startsWith('e:') ? 'email' : 'phone');

/** Inserts the lead's identity rows (the caller's `where` guards them, e.g. on the lead being written). */
export function addIdentitiesSql(scope: TenantScope, leadId: string, keys: string[], p: Params, opts: { where?: string } = {}): string {
  return `INSERT INTO lead_identities (tenant_id, environment, key, lead_id)
    SELECT ${p.add(scope.tenantId)}::bigint, ${p.add(scope.environment)}::varchar, k, ${p.add(leadId)}::bigint
      FROM unnest(${p.add(keys)}::varchar[]) k${opts.where ? ` WHERE ${opts.where}` : ''}
    ON CONFLICT DO NOTHING`;
}

/**
 * Makes the lead's identity rows match its current email and phone (after a PATCH or a merge, or
 * for a lead written without them): drops the keys it no longer has, adds the new ones.
 */
export async function syncIdentities(data: ScopedData, lead: Pick<Lead, 'id' | 'emailNormalized' | 'phoneNormalized'>): Promise<void> {
  const { scope } = data;
  const p = new Params();
  const keys = dedupeKeys(lead);
  const sql = `WITH gone AS (DELETE FROM lead_identities WHERE tenant_id = ${p.add(scope.tenantId)} AND environment = ${p.add(scope.environment)}
      AND lead_id = ${p.add(lead.id)} AND key <> ALL(${p.add(keys)}::varchar[]))
    ${addIdentitiesSql(scope, lead.id, keys, p)}`;
  await managerOf(data).query(sql, p.values);
}

/** With the lead (deleted, or merged into another): it leaves its clusters. */
export async function deleteIdentities(data: ScopedData, leadId: string): Promise<void> {
  const { scope } = data;
  await managerOf(data).query(`DELETE FROM lead_identities WHERE tenant_id = $1 AND environment = $2 AND lead_id = $3`, [
    scope.tenantId,
    scope.environment,
    leadId,
  ]);
}

/**
 * SQL: the keys among `keysParam` (a varchar[] placeholder) that at least `threshold` leads have
 * already, so a lead that adds itself makes them common. Counting stops at the threshold, so the
 * cost does not grow with the cluster, and reading takes no lock.
 */
export function commonKeysSql(scope: TenantScope, keysParam: string, p: Params, threshold = config.DEDUPE_COMMON_IDENTITY_LEADS): string {
  return `SELECT k AS key FROM unnest(${keysParam}::varchar[]) k
    WHERE (SELECT count(*) FROM (SELECT 1 FROM lead_identities c WHERE c.tenant_id = ${p.add(scope.tenantId)}::bigint
      AND c.environment = ${p.add(scope.environment)}::varchar AND c.key = k LIMIT ${p.add(threshold)}::int) n) >= ${p.add(threshold)}::int`;
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
  const { scope } = data;
  const manager = managerOf(data);
  const keyed: { key: string; common: boolean }[] = await manager.query(
    `SELECT i.key, (SELECT count(*) FROM (SELECT 1 FROM lead_identities c WHERE c.tenant_id = i.tenant_id AND c.environment = i.environment
              AND c.key = i.key LIMIT $4::int + 1) n) > $4::int AS common
       FROM lead_identities i WHERE i.tenant_id = $1 AND i.environment = $2 AND i.lead_id = $3 ORDER BY i.key`,
    [scope.tenantId, scope.environment, leadId, threshold],
  );
  const shared = keyed.filter((k) => !k.common).map((k) => k.key);
  const commonKeys = keyed.filter((k) => k.common).map((k) => reasonOf(k.key));
  if (!shared.length) return { duplicates: [], commonKeys };
  const rows: { lead_id: string; keys: string[] }[] = await manager.query(
    `SELECT o.lead_id::text, array_agg(o.key ORDER BY o.key) AS keys FROM lead_identities o
      WHERE o.tenant_id = $1 AND o.environment = $2 AND o.key = ANY($3::varchar[]) AND o.lead_id <> $4
      GROUP BY o.lead_id ORDER BY o.lead_id`,
    [scope.tenantId, scope.environment, shared, leadId],
  );
  return { duplicates: rows.map((r) => ({ leadId: r.lead_id, reasons: r.keys.map(reasonOf) })), commonKeys };
}
