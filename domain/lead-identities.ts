import type { EntityManager } from 'typeorm';
import type { Lead } from '../db/entities';
import type { TenantScope } from '../db/scoped-repository';
import { Params } from '../db/sql';
import { dedupeKeys } from './lead-dedupe-keys';

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
export async function syncIdentities(
  manager: EntityManager,
  scope: TenantScope,
  lead: Pick<Lead, 'id' | 'emailNormalized' | 'phoneNormalized'>,
): Promise<void> {
  const p = new Params();
  const keys = dedupeKeys(lead);
  const sql = `WITH gone AS (DELETE FROM lead_identities WHERE tenant_id = ${p.add(scope.tenantId)} AND environment = ${p.add(scope.environment)}
      AND lead_id = ${p.add(lead.id)} AND key <> ALL(${p.add(keys)}::varchar[]))
    ${addIdentitiesSql(scope, lead.id, keys, p)}`;
  await manager.query(sql, p.values);
}

/** With the lead (deleted, or merged into another): it leaves its clusters. */
export async function deleteIdentities(manager: EntityManager, scope: TenantScope, leadId: string): Promise<void> {
  await manager.query(`DELETE FROM lead_identities WHERE tenant_id = $1 AND environment = $2 AND lead_id = $3`, [
    scope.tenantId,
    scope.environment,
    leadId,
  ]);
}

export interface LeadDuplicates {
  /** Other leads sharing a key with the lead, with the kinds of key they share. */
  duplicates: { leadId: string; reasons: DuplicateReason[] }[];
}

/** The other leads that share a key with the lead, in lead order. */
export async function findDuplicates(manager: EntityManager, scope: TenantScope, leadId: string): Promise<LeadDuplicates> {
  const rows: { lead_id: string; keys: string[] }[] = await manager.query(
    `SELECT o.lead_id::text, array_agg(o.key ORDER BY o.key) AS keys
       FROM lead_identities mine
       JOIN lead_identities o ON o.tenant_id = mine.tenant_id AND o.environment = mine.environment AND o.key = mine.key AND o.lead_id <> mine.lead_id
      WHERE mine.tenant_id = $1 AND mine.environment = $2 AND mine.lead_id = $3
      GROUP BY o.lead_id ORDER BY o.lead_id`,
    [scope.tenantId, scope.environment, leadId],
  );
  return { duplicates: rows.map((r) => ({ leadId: r.lead_id, reasons: r.keys.map(reasonOf) })) };
}
