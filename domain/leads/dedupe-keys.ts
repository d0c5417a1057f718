import type { Lead } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { Params } from '../../db/sql';
import { managerOf, type ScopedData } from '../../db/scoped-data';

type Keyed = Pick<Lead, 'emailNormalized' | 'phoneNormalized'>;

/** The values duplicate detection compares (see LeadDedupeKey). */
export const dedupeKeys = (lead: Keyed): string[] => [
  `e:${lead.emailNormalized}`,
  ...(lead.phoneNormalized ? [`p:${lead.phoneNormalized}`] : []),
];

/** Claims the keys for the lead; RETURNING key lists the ones it was the first to have. */
export function claimDedupeKeysSql(scope: TenantScope, leadId: string, keys: string[], p: Params, opts: { where?: string } = {}): string {
  return `INSERT INTO lead_dedupe_keys (tenant_id, environment, key, lead_id)
    SELECT ${p.add(scope.tenantId)}::bigint, ${p.add(scope.environment)}::varchar, k, ${p.add(leadId)}::bigint
      FROM unnest(${p.add(keys)}::varchar[]) k${opts.where ? ` WHERE ${opts.where}` : ''}
    ON CONFLICT DO NOTHING`;
}

/** After a lead's email or phone changed: later leads with the new values must get the full check. */
export async function claimDedupeKeys(data: ScopedData, lead: Keyed & Pick<Lead, 'id'>): Promise<void> {
  const manager = managerOf(data);
  const { scope } = data;
  const p = new Params();
  await manager.query(claimDedupeKeysSql(scope, lead.id, dedupeKeys(lead), p), p.values);
}
