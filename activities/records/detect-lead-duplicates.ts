import type { DataSource } from 'typeorm';
import { Lead, LeadDuplicate } from '../../db/entities';
import type { LeadRef } from '../../workflows/types';
import { ScopedData } from '../../db/scoped-data';

/**
 * Records duplicate pairs in both directions with an upsert, then marks the lead checked. Safe to
 * run any number of times for the same lead.
 */
export function detectLeadDuplicates(db: DataSource) {
  return async ({ tenantId, environment, leadId }: LeadRef): Promise<{ duplicates: number }> => {
    return db.transaction(async (manager) => {
      const data = new ScopedData(manager, { tenantId, environment });
      const leads = data.repo(Lead);
      const lead = await leads.findById(leadId);
      if (!lead) return { duplicates: 0 }; // deleted meanwhile: nothing to do
      const matches = await leads
        .select('l')
        .andWhere('l.id <> :leadId', { leadId })
        .andWhere('(l.email_normalized = :email OR (l.phone_normalized IS NOT NULL AND l.phone_normalized = :phone))', {
          email: lead.emailNormalized,
          phone: lead.phoneNormalized,
        })
        .getMany();
      for (const other of matches) {
        const reasons = [
          ...(other.emailNormalized === lead.emailNormalized ? ['email'] : []),
          ...(lead.phoneNormalized && other.phoneNormalized === lead.phoneNormalized ? ['phone'] : []),
        ];
        for (const [a, b] of [
          [lead.id, other.id],
          [other.id, lead.id],
        ]) {
          await data.sql((q) => {
            const [tenant, env] = q.scopeValues();
            return `INSERT INTO ${q.table(LeadDuplicate)} (tenant_id, environment, lead_id, duplicate_lead_id, reasons)
              VALUES (${tenant}, ${env}, ${q.value(a)}, ${q.value(b)}, ${q.value(reasons)})
              ON CONFLICT (lead_id, duplicate_lead_id) DO UPDATE SET reasons = EXCLUDED.reasons, updated_at = now()`;
          });
        }
      }
      // Only this column: saving the whole entity would write back fields read before a concurrent
      // update (a second form submission, say) committed.
      await leads.updateWhere({ id: lead.id }, { duplicatesCheckedAt: new Date() });
      return { duplicates: matches.length };
    });
  };
}
