import { Campaign, type Lead } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { DomainContext } from '../context';
import { enrollLeads } from './enroll';

export type LeadTrigger = 'lead_created' | 'lead_status_changed' | 'form_submitted';

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
