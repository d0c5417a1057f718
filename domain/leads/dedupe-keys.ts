import { LeadDedupeKey, type Lead } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';

type Keyed = Pick<Lead, 'emailNormalized' | 'phoneNormalized'>;

/** The values duplicate detection compares (see LeadDedupeKey). */
export const dedupeKeys = (lead: Keyed): string[] => [
  `e:${lead.emailNormalized}`,
  ...(lead.phoneNormalized ? [`p:${lead.phoneNormalized}`] : []),
];

/** Claims the keys for the lead; RETURNING key lists the ones it was the first to have. */
export function claimDedupeKeysSql(q: ScopedSqlBuilder, leadId: string, keys: string[], opts: { where?: string } = {}): string {
  const [tenant, environment] = q.scopeValues();
  return `INSERT INTO ${q.table(LeadDedupeKey)} (tenant_id, environment, key, lead_id)
    SELECT ${tenant}, ${environment}, k, ${q.value(leadId)}::bigint
      FROM unnest(${q.value(keys)}::varchar[]) k${opts.where ? ` WHERE ${opts.where}` : ''}
    ON CONFLICT DO NOTHING`;
}

/** After a lead's email or phone changed: later leads with the new values must get the full check. */
export async function claimDedupeKeys(data: ScopedData, lead: Keyed & Pick<Lead, 'id'>): Promise<void> {
  await data.sql((q) => claimDedupeKeysSql(q, lead.id, dedupeKeys(lead)));
}
