import type { DataSource } from 'typeorm';
import { Lead } from '../../db/entities';
import { findDuplicates, syncIdentities } from '../../domain/leads/identities';
import type { LeadRef } from '../../workflows/types';
import { ScopedData } from '../../db/scoped-data';

/**
 * Makes sure the lead is in the clusters of its email and phone (it normally joined them when it
 * was written; a lead written another way joins here), counts its duplicates, then marks it
 * checked. Each step is one short statement of its own, so no lock is held across leads; safe to
 * run any number of times for the same lead.
 */
export function detectLeadDuplicates(db: DataSource) {
  return async ({ tenantId, environment, leadId }: LeadRef): Promise<{ duplicates: number }> => {
    const data = new ScopedData(db.manager, { tenantId, environment });
    const leads = data.repo(Lead);
    const lead = await leads.findById(leadId);
    if (!lead) return { duplicates: 0 }; // deleted meanwhile: nothing to do
    await syncIdentities(data, lead);
    const { duplicates } = await findDuplicates(data, lead.id);
    // Only this column: saving the whole entity would write back fields read before a concurrent
    // update (a second form submission, say) committed.
    await leads.updateWhere({ id: lead.id }, { duplicatesCheckedAt: new Date() });
    return { duplicates: duplicates.length };
  };
}
