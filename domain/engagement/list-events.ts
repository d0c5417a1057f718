import type { EngagementEventListQuery } from '../../api/schemas/engagement-event';
import { EngagementEvent } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import type { DomainContext } from '../context';

/** Every recorded engagement event, machine traffic included (with its reason), newest first. */
export async function listEngagementEvents(ctx: DomainContext, q: EngagementEventListQuery) {
  const qb = scoped(ctx.db.manager, EngagementEvent, ctx.scope).query('e');
  if (q.leadId) qb.andWhere('e.lead_id = :leadId', { leadId: q.leadId });
  if (q.messageId) qb.andWhere('e.message_id = :messageId', { messageId: q.messageId });
  if (q.campaignId) qb.andWhere('e.campaign_id = :campaignId', { campaignId: q.campaignId });
  if (q.type) qb.andWhere('e.type = :type', { type: q.type });
  if (q.machine !== undefined) qb.andWhere('e.machine = :machine', { machine: q.machine });
  const [rows, total] = await qb
    .orderBy('e.id', 'DESC')
    .skip((q.page - 1) * q.limit)
    .take(q.limit)
    .getManyAndCount();
  return { rows, total };
}
