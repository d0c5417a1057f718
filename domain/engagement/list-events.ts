import type { EngagementEventListQuery } from '../../contracts/engagement-event';
import { EngagementEvent } from '../../db/entities';
import type { DomainContext } from '../context';

/** Every recorded engagement event, machine traffic included (with its reason), newest first. */
export async function listEngagementEvents(ctx: DomainContext, q: EngagementEventListQuery) {
  const qb = ctx.data.repo(EngagementEvent).select('e');
  if (q.leadId) qb.andWhere('e.lead_id = :leadId', { leadId: q.leadId });
  if (q.messageId) qb.andWhere('e.message_id = :messageId', { messageId: q.messageId });
  if (q.campaignId) qb.andWhere('e.campaign_id = :campaignId', { campaignId: q.campaignId });
  if (q.type) qb.andWhere('e.type IN (:...type)', { type: q.type });
  if (q.machine !== undefined) qb.andWhere('e.machine = :machine', { machine: q.machine });
  const [rows, total] = await qb.orderBy('e.id', 'DESC').page(q.page, q.limit);
  return { rows, total };
}
