import type { DataSource } from 'typeorm';
import { Lead } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { findDuplicates, syncIdentities } from '../../domain/lead-identities';
import type { LeadRef } from '../../workflows/types';

/**
 * Makes sure the lead is in the clusters of its email and phone (it normally joined them when it
 * was written; a lead written another way joins here), counts its duplicates, then marks it
 * checked. Each step is one short statement of its own, so no lock is held across leads; safe to
 * run any number of times for the same lead.
 */
export function detectLeadDuplicates(db: DataSource) {
  return async ({ tenantId, environment, leadId }: LeadRef): Promise<{ duplicates: number }> => {
    const scope = { tenantId, environment };
    const leads = scoped(db.manager, Lead, scope);
    const lead = await leads.findById(leadId);
    if (!lead) return { duplicates: 0 }; // deleted meanwhile: nothing to do
    await syncIdentities(db.manager, scope, lead);
    const { duplicates } = await findDuplicates(db.manager, scope, lead.id);
    // Only this column: saving the whole entity would write back fields read before a concurrent
    // update (a second form submission, say) committed.
    await leads.updateWhere({ id: lead.id }, { duplicatesCheckedAt: new Date() });
    return { duplicates: duplicates.length };
  };
}
