import type { SuppressionListQuery } from '../../api/schemas/suppression';
import { EmailSuppression } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { queryRows } from '../../db/sql';
import { notFound } from '../../lib/errors';
import type { DomainContext } from '../context';
import { normalizeEmail } from '../normalize';
import { withEvents } from '../transaction';

export async function listSuppressions(ctx: DomainContext, q: SuppressionListQuery) {
  const qb = scoped(ctx.db.manager, EmailSuppression, ctx.scope).query('s');
  if (q.reason) qb.andWhere('s.reason = :reason', { reason: q.reason });
  if (q.email) qb.andWhere('s.address = :address', { address: normalizeEmail(q.email) });
  const [rows, total] = await qb
    .orderBy('s.id', 'DESC')
    .skip((q.page - 1) * q.limit)
    .take(q.limit)
    .getManyAndCount();
  return { rows, total };
}

/**
 * Re-subscribes an address (the tenant's decision, e.g. the person asked again, or a bounce was a
 * provider's mistake): the suppression is removed and every lead with the address loses its
 * `unsubscribedAt` and `bouncedAt` (`lead.updated` for each). Enrollments that already exited stay so.
 */
export async function resubscribe(ctx: DomainContext, id: string): Promise<EmailSuppression> {
  return withEvents(ctx, async (manager, emit) => {
    const suppressions = scoped(manager, EmailSuppression, ctx.scope);
    const suppression = await suppressions.findById(id);
    if (!suppression) throw notFound('Suppression');
    await suppressions.deleteById(id);
    const leads = await queryRows(
      manager,
      `UPDATE leads SET unsubscribed_at = NULL, bounced_at = NULL, updated_at = now()
        WHERE tenant_id = $1 AND environment = $2 AND email_normalized = $3 AND (unsubscribed_at IS NOT NULL OR bounced_at IS NOT NULL)
        RETURNING id::text`,
      [ctx.scope.tenantId, ctx.scope.environment, suppression.address],
    );
    for (const lead of leads) await emit('lead.updated', { id: lead.id as string, changes: { unsubscribedAt: null, bouncedAt: null } });
    return suppression;
  });
}
