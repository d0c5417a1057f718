import { Campaign, type Lead } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { DomainContext } from '../context';
import { enrollLeads } from './enroll';

export type LeadTrigger = 'lead_created' | 'lead_status_changed' | 'form_submitted';

/**
 * Enrolls a just-committed lead into every active campaign of its tenant and environment whose
 * pinned definition starts with this trigger (`campaignIds` when the caller looked them up
 * already). Never fails the lead write: a failure is logged.
 */
export async function enrollByTrigger(ctx: DomainContext, lead: Lead, trigger: LeadTrigger, campaignIds?: string[]): Promise<void> {
  try {
    campaignIds ??= (await ctx.data.repo(Campaign).find({ where: { status: 'active', triggerType: trigger } })).map((c) => c.id);
    for (const campaignId of campaignIds) await enrollLeads(ctx, campaignId, [encodeId('lead', lead.id)]);
  } catch (err) {
    logger.warn({ err, leadId: lead.id, trigger }, 'automatic campaign enrollment failed');
  }
}
