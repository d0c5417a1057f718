import type { SuppressionCreate, SuppressionListQuery } from '../../contracts/suppression';
import { applySuppression } from './apply-suppression';
import { lockLeadsOfAddress } from './email-suppressions';
import { EmailSuppression, Lead } from '../../db/entities';
import { notFound } from '../../lib/errors';
import type { DomainContext } from '../context';
import { normalizeEmail } from '../normalize';
import { unitOfWork } from '../unit-of-work';

export async function listSuppressions(ctx: DomainContext, q: SuppressionListQuery) {
  const qb = ctx.data.repo(EmailSuppression).select('s');
  if (q.reason) qb.andWhere('s.reason IN (:...reason)', { reason: q.reason });
  if (q.email) qb.andWhere('s.address = :address', { address: normalizeEmail(q.email) });
  const [rows, total] = await qb.orderBy('s.id', 'DESC').page(q.page, q.limit);
  return { rows, total };
}

/**
 * Suppresses an address the tenant learnt of elsewhere: an opt-out by phone or by reply, a list
 * from another email provider. As an unsubscribe link would: every lead with the address is marked
 * (`lead.updated`) and their running enrollments end. A bounce outranks an unsubscribe, so adding
 * `unsubscribed` for a bounced address leaves it bounced; the answer is the list's row as it is.
 */
export async function addSuppression(ctx: DomainContext, input: SuppressionCreate): Promise<EmailSuppression> {
  const address = normalizeEmail(input.email);
  await applySuppression(ctx, ctx.scope, { address, reason: input.reason, at: new Date(), leadId: null });
  const row = await ctx.data.repo(EmailSuppression).findOne({ address });
  if (!row) throw new Error(`suppression of ${address} vanished after it was written`);
  return row;
}

/**
 * Re-subscribes an address (the tenant's decision, e.g. the person asked again, or a bounce was a
 * provider's mistake): the suppression is removed and every lead with the address loses its
 * `unsubscribedAt` and `bouncedAt` (`lead.updated` for each). Enrollments that already exited stay so.
 */
export async function resubscribe(ctx: DomainContext, id: string): Promise<EmailSuppression> {
  return unitOfWork(ctx, async (tx) => {
    const suppressions = tx.repo(EmailSuppression);
    const suppression = await suppressions.findById(id);
    if (!suppression) throw notFound('Suppression');
    await lockLeadsOfAddress(tx, suppression.address);
    // Gone since it was read (another re-subscribe): the leads' update below must not happen twice.
    if (!(await suppressions.deleteById(id))) throw notFound('Suppression');
    const leads = await tx.sql<{ id: string }>(
      (q) => `UPDATE ${q.table(Lead)} SET unsubscribed_at = NULL, bounced_at = NULL, updated_at = now()
        WHERE ${q.scope()} AND email_normalized = ${q.value(suppression.address)} AND (unsubscribed_at IS NOT NULL OR bounced_at IS NOT NULL)
        RETURNING id::text`,
    );
    for (const lead of leads) await tx.emit('lead.updated', { id: lead.id, changes: { unsubscribedAt: null, bouncedAt: null } });
    return suppression;
  });
}
