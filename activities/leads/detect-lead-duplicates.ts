import type { DataSource } from 'typeorm';
import { Lead } from '../../db/entities';
import { findDuplicates, syncIdentities } from '../../domain/leads/identities';
import type { LeadRef } from '../../workflows/types';
import { ScopedData } from '../../db/scoped-data';

/**
 * Makes sure the lead is in the clusters of its email and phone (it normally joined them when it
 * was written; a lead written another way joins here), counts its duplicates, then marks it
 * checked. Safe to run any number of times for the same lead.
 */
export function detectLeadDuplicates(db: DataSource) {
  return async ({ tenantId, environment, leadId }: LeadRef): Promise<{ duplicates: number }> => {
    const scope = { tenantId, environment };
    // The sync holds the lead's row lock, and only that lead's: a delete, merge or PATCH that
    // commits between reading the lead and writing its keys would otherwise get back the rows it
    // just removed (or lose the keys it just wrote).
    const lead = await db.transaction(async (manager) => {
      const data = new ScopedData(manager, scope);
      const found = await data.repo(Lead).findByIdForUpdate(leadId);
      if (found) await syncIdentities(data, found);
      return found;
    });
    if (!lead) return { duplicates: 0 }; // deleted meanwhile: nothing to do
    const data = new ScopedData(db.manager, scope);
    const { duplicates } = await findDuplicates(data, lead.id);
    // Only this column: saving the whole entity would write back fields read before a concurrent
    // update (a second form submission, say) committed. Not updated_at either: the check changes
    // nothing a client sees, and integrations syncing by `sort=updatedAt` would fetch the lead again.
    await data.sql(
      (q) => `UPDATE ${q.table(Lead)} SET duplicates_checked_at = now() WHERE ${q.scope()} AND id = ${q.value(lead.id)}::bigint`,
    );
    return { duplicates: duplicates.length };
  };
}
