import { Campaign, type Lead } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import type { DomainContext } from '../context';
import { enrollLeads } from './enroll';

export type LeadTrigger = 'lead_created' | 'lead_status_changed' | 'form_submitted';

/**
 * The IDs of the campaigns a trigger starts, as one row `ids` (text[]), for a statement that writes
 * leads and also reads what enrollByTrigger needs (its `campaignIds`).
 */
export function triggeredCampaignsSql(q: ScopedSqlBuilder, trigger: LeadTrigger): string {
  return `SELECT coalesce(array_agg(c.id::text ORDER BY c.id), '{}') AS ids FROM ${q.from(Campaign, 'c')}
    WHERE c.status = 'active' AND c.trigger_type = ${q.value(trigger)}::varchar`;
}

/**
 * Enrolls just-committed leads (one, a batch's, or an import chunk's) into every active campaign
 * of their tenant and environment whose pinned definition starts with this trigger, one enrollment
 * call per campaign (`campaignIds` when the caller looked them up already). Never fails the lead
 * write: a failure is logged.
 */
export async function enrollByTrigger(
  ctx: DomainContext,
  leads: Pick<Lead, 'id'>[],
  trigger: LeadTrigger,
  campaignIds?: string[],
): Promise<void> {
  if (!leads.length) return;
  try {
    campaignIds ??= (await ctx.data.repo(Campaign).find({ where: { status: 'active', triggerType: trigger } })).map((c) => c.id);
    const leadIds = leads.map((l) => encodeId('lead', l.id));
    for (const campaignId of campaignIds) await enrollLeads(ctx, campaignId, leadIds);
  } catch (err) {
    logger.warn(
      { err, leads: leads.length, leadId: leads.length === 1 ? leads[0].id : undefined, trigger },
      'automatic campaign enrollment failed',
    );
  }
}
