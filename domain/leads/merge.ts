import { Commission, EngagementEvent, FormSubmission, Lead, Message, Opportunity, StoredFile, Task } from '../../db/entities';
import { notFound, validationFailed } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { activeEnrollmentsOf, stopEnrollments } from '../campaigns/signal-enrollments';
import { suppressAddress } from '../communications/email-suppressions';
import type { DomainContext } from '../context';
import { deleteIdentities, syncIdentities } from './identities';
import { removeFromIndex, indexLead } from '../search-index';
import { unitOfWork } from '../unit-of-work';

/** Rows that point at a lead by `lead_id`, re-pointed at the survivor of a merge. */
const LEAD_REFERENCES = [Task, Opportunity, EngagementEvent, FormSubmission, Message, Commission];

/**
 * Merges `duplicateId` into `survivorId` in one transaction: its tasks, opportunities, files,
 * engagement events, form submissions, messages and commissions move to the survivor; empty
 * survivor fields are filled from the duplicate and custom fields merged (the survivor's values
 * win), an unsubscribe or bounce of either lead holds for the survivor; then the duplicate is deleted. Emits lead.updated for the survivor and lead.deleted for the
 * duplicate. The bulk re-pointing is hand-written SQL (no updated_at bump), scoped by tx.sql. The
 * duplicate's active enrollments exit at once (`lead_merged`).
 */
export async function mergeLeads(ctx: DomainContext, survivorId: string, duplicateId: string): Promise<Lead> {
  if (survivorId === duplicateId) throw validationFailed([{ field: 'duplicateId', message: 'Cannot merge a lead into itself' }]);
  const { saved, enrollments } = await unitOfWork(ctx, async (tx) => {
    const leads = tx.repo(Lead);
    const [survivor, duplicate] = await Promise.all([
      leads.select('l').andWhere('l.id = :id', { id: survivorId }).setLock('pessimistic_write').getOne(),
      leads.select('l').andWhere('l.id = :id', { id: duplicateId }).setLock('pessimistic_write').getOne(),
    ]);
    if (!survivor) throw notFound('Lead');
    if (!duplicate) throw validationFailed([{ field: 'duplicateId', message: 'Lead not found' }]);
    // A lead converts once: the duplicate's conversion becomes an ordinary deal when both converted.
    if (survivor.convertedAt && duplicate.convertedAt) {
      await tx.sql(
        (q) => `UPDATE ${q.table(Opportunity)} SET converted_from_lead = false WHERE ${q.scope()} AND lead_id = ${q.value(duplicateId)}`,
      );
    }
    for (const entity of LEAD_REFERENCES) {
      await tx.sql(
        (q) => `UPDATE ${q.table(entity)} SET lead_id = ${q.value(survivorId)} WHERE ${q.scope()} AND lead_id = ${q.value(duplicateId)}`,
      );
    }
    await tx.sql(
      (q) =>
        `UPDATE ${q.table(StoredFile)} SET entity_id = ${q.value(survivorId)} WHERE ${q.scope()} AND entity_type = 'lead' AND entity_id = ${q.value(duplicateId)}`,
    );
    await deleteIdentities(tx, duplicateId);

    const changes: Record<string, unknown> = {};
    for (const key of ['phone', 'assignedTo', 'partnerId', 'convertedAt'] as const) {
      if (survivor[key] === null && duplicate[key] !== null) {
        (survivor as unknown as Record<string, unknown>)[key] = duplicate[key];
        changes[key] =
          key === 'assignedTo'
            ? encodeId('user', duplicate[key] as string)
            : key === 'partnerId'
              ? encodeId('partner', duplicate[key] as string)
              : duplicate[key];
      }
    }
    if (survivor.phone && !survivor.phoneNormalized) survivor.phoneNormalized = duplicate.phoneNormalized;
    const addedCustom = Object.fromEntries(Object.entries(duplicate.customFields).filter(([k]) => !(k in survivor.customFields)));
    if (Object.keys(addedCustom).length) {
      survivor.customFields = { ...survivor.customFields, ...addedCustom };
      changes.customFields = addedCustom;
    }
    survivor.score = Math.max(survivor.score, duplicate.score);
    // The stricter state is kept: an opt-out or bounce of either lead holds for the merged one and its address.
    survivor.unsubscribedAt ??= duplicate.unsubscribedAt;
    survivor.bouncedAt ??= duplicate.bouncedAt;
    const reason = survivor.bouncedAt ? 'bounced' : survivor.unsubscribedAt ? 'unsubscribed' : null;
    if (reason) await suppressAddress(tx, survivor.email, reason);
    changes.mergedLeadId = encodeId('lead', duplicateId);
    const saved = await leads.save(survivor);
    await leads.deleteById(duplicateId);
    await removeFromIndex(tx, 'lead', encodeId('lead', duplicateId));
    await indexLead(tx, saved);
    await syncIdentities(tx, saved); // the survivor may have taken the duplicate's phone
    await tx.emit('lead.updated', { id: survivorId, changes });
    await tx.emit('lead.deleted', duplicate);
    return { saved, enrollments: await activeEnrollmentsOf(tx, duplicateId) };
  });
  // The duplicate's enrollments carry its ID and stay its own; the survivor keeps its own enrollments.
  await stopEnrollments(ctx.workflows.client, enrollments, 'lead_merged');
  return saved;
}
