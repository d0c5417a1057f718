import { Campaign, type Lead } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { DomainContext } from '../context';
import { enrollLeads } from './enroll';

export type LeadTrigger = 'lead_created' | 'lead_status_changed' | 'form_submitted';

/**
 * Enrolls a just-committed lead into every active campaign of its tenant and environment whose
 * pinned definition starts with this trigger. Never fails the lead write: a failure is logged.
 */
export async function enrollByTrigger(ctx: DomainContext, lead: Lead, trigger: LeadTrigger): Promise<void> {
  try {
    const campaigns = await scoped(ctx.db.manager, Campaign, ctx.scope).find({ where: { status: 'active', triggerType: trigger } });
    for (const campaign of campaigns) await enrollLeads(ctx, campaign.id, [encodeId('lead', lead.id)]);
  } catch (err) {
    logger.warn({ err, leadId: lead.id, trigger }, 'automatic campaign enrollment failed');
  }
}
