import { assertCustomFieldCount } from './custom-fields';
import { Commission, EngagementEvent, FormSubmission, Lead, Message, Opportunity, StoredFile, Task, User } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import { notFound, validationFailed } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { activeEnrollmentsOf, stopEnrollments } from '../campaigns/signal-enrollments';
import { suppressAddresses } from '../communications/email-suppressions';
import type { DomainContext } from '../context';
import { deleteIdentities, syncIdentities } from './identities';
import { removeFromIndex, indexLead } from '../search-index';
import { unitOfWork } from '../unit-of-work';
import { recordPendingEnrollment, startPendingEnrollment } from '../campaigns/auto-enroll';
import { unassignableReason } from '../scoped-lookups';
import { normalizePhone } from '../normalize';

/** Rows that point at a lead by `lead_id`, re-pointed at the survivor of a merge. */
const LEAD_REFERENCES = [Task, Opportunity, EngagementEvent, FormSubmission, Message, Commission];

const isActiveUser = async (data: ScopedData, userId: string) => unassignableReason(await data.repo(User).findById(userId)) === null;

/**
 * Merges `duplicateId` into `survivorId` in one transaction: its tasks, opportunities, files,
 * engagement events, form submissions, messages and commissions move to the survivor; empty
 * survivor fields are filled from the duplicate (its assignee only while that user is active; its
 * conversion with its status) and custom fields merged (the survivor's values win), the higher
 * score is kept, an unsubscribe or bounce of either lead holds for the survivor; then the
 * duplicate is deleted. Emits lead.updated for the survivor, with every field that changed, and
 * lead.deleted for the duplicate. The bulk re-pointing is hand-written SQL, scoped by tx.sql; it
 * sets each moved record's updated_at (its leadId changed), which puts a deal in the change feed.
 * The duplicate's active enrollments exit at once (`lead_merged`).
 */
export async function mergeLeads(ctx: DomainContext, survivorId: string, duplicateId: string): Promise<Lead> {
  if (survivorId === duplicateId) throw validationFailed([{ field: 'duplicateId', message: 'Cannot merge a lead into itself' }]);
  const { saved, pending, enrollments } = await unitOfWork(ctx, async (tx) => {
    const leads = tx.repo(Lead);
    // Both rows in ID order: two opposite merges of one pair then queue instead of deadlocking.
    const locked = await leads
      .select('l')
      .andWhere('l.id IN (:...ids)', { ids: [survivorId, duplicateId] })
      .orderBy('l.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    const survivor = locked.find((l) => l.id === survivorId);
    const duplicate = locked.find((l) => l.id === duplicateId);
    if (!survivor) throw notFound('Lead');
    if (!duplicate) throw validationFailed([{ field: 'duplicateId', message: 'Lead not found' }]);
    // A lead converts once: the duplicate's conversion becomes an ordinary deal when both converted.
    if (survivor.convertedAt && duplicate.convertedAt) {
      await tx.sql(
        (q) =>
          `UPDATE ${q.table(Opportunity)} SET converted_from_lead = false, updated_at = now() WHERE ${q.scope()} AND lead_id = ${q.value(duplicateId)}`,
      );
    }
    for (const entity of LEAD_REFERENCES) {
      await tx.sql(
        (q) =>
          `UPDATE ${q.table(entity)} SET lead_id = ${q.value(survivorId)}, updated_at = now() WHERE ${q.scope()} AND lead_id = ${q.value(duplicateId)}`,
      );
    }
    await tx.sql(
      (q) =>
        `UPDATE ${q.table(StoredFile)} SET entity_id = ${q.value(survivorId)} WHERE ${q.scope()} AND entity_type = 'lead' AND entity_id = ${q.value(duplicateId)}`,
    );
    await deleteIdentities(tx, duplicateId);

    const changes: Record<string, unknown> = {};
    const take = <K extends keyof Lead>(key: K, value: Lead[K], shown: unknown = value) => {
      if (survivor[key] === value) return;
      survivor[key] = value;
      changes[key] = shown;
    };
    if (survivor.phone === null && duplicate.phone !== null) take('phone', duplicate.phone);
    // Nobody is handed a lead after leaving: a deactivated user's duplicate leaves the survivor unassigned.
    if (survivor.assignedTo === null && duplicate.assignedTo !== null && (await isActiveUser(tx, duplicate.assignedTo))) {
      take('assignedTo', duplicate.assignedTo, encodeId('user', duplicate.assignedTo));
    }
    if (survivor.partnerId === null && duplicate.partnerId !== null) {
      take('partnerId', duplicate.partnerId, encodeId('partner', duplicate.partnerId));
    }
    // The survivor takes over the duplicate's conversion with the status the conversion gave it.
    if (survivor.convertedAt === null && duplicate.convertedAt !== null) {
      take('convertedAt', duplicate.convertedAt);
      take('status', duplicate.status);
    }
    // From the phone the survivor now has, by the one rule: a copied normalised value could be an older rule's.
    survivor.phoneNormalized = normalizePhone(survivor.phone);
    const addedCustom = Object.fromEntries(Object.entries(duplicate.customFields).filter(([k]) => !(k in survivor.customFields)));
    if (Object.keys(addedCustom).length) {
      survivor.customFields = { ...survivor.customFields, ...addedCustom };
      assertCustomFieldCount(survivor.customFields, 'duplicateId', "Taking the duplicate's custom fields");
      changes.customFields = addedCustom;
    }
    take('score', Math.max(survivor.score, duplicate.score));
    // The stricter state is kept: an opt-out or bounce of either lead holds for the merged one and its address.
    if (survivor.unsubscribedAt === null && duplicate.unsubscribedAt !== null) take('unsubscribedAt', duplicate.unsubscribedAt);
    if (survivor.bouncedAt === null && duplicate.bouncedAt !== null) take('bouncedAt', duplicate.bouncedAt);
    const reason = survivor.bouncedAt ? 'bounced' : survivor.unsubscribedAt ? 'unsubscribed' : null;
    if (reason) await suppressAddresses(tx, [survivor.email], reason); // after both leads' locks, as lockLeadsOfAddress orders
    changes.mergedLeadId = encodeId('lead', duplicateId);
    const saved = await leads.save(survivor);
    await leads.deleteById(duplicateId);
    await removeFromIndex(tx, 'lead', encodeId('lead', duplicateId));
    await indexLead(tx, saved);
    await syncIdentities(tx, saved); // the survivor may have taken the duplicate's phone
    await tx.emit('lead.updated', { id: survivorId, changes });
    await tx.emit('lead.deleted', duplicate);
    const pending = 'status' in changes ? await recordPendingEnrollment(tx, 'lead_status_changed', [survivorId], ctx.actorUserId) : null;
    return { saved, pending, enrollments: await activeEnrollmentsOf(tx, duplicateId) };
  });
  startPendingEnrollment(ctx, pending);
  // The duplicate's enrollments carry its ID and stay its own; the survivor keeps its own enrollments.
  await stopEnrollments(ctx.workflows.client, enrollments, 'lead_merged');
  return saved;
}
