import { Lead } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { notFound, validationFailed } from '../lib/errors';
import { encodeId } from '../lib/ids';
import type { DomainContext } from './context';
import { deleteIdentities, syncIdentities } from './lead-identities';
import { removeFromIndex, indexLead } from './search-index';
import { emitEvent } from './webhooks/emit-event';
import { relayAfterCommit } from './webhooks/relay';
import { eventPayloads } from './webhooks/webhook-events';

/** Rows that point at a lead by `lead_id`, re-pointed at the survivor of a merge. */
const LEAD_REFERENCES = ['tasks', 'opportunities', 'engagement_events', 'form_submissions', 'messages', 'commissions'];

/**
 * Merges `duplicateId` into `survivorId` in one transaction: its tasks, opportunities, files,
 * engagement events, form submissions, messages and commissions move to the survivor; empty
 * survivor fields are filled from the duplicate and custom fields merged (the survivor's values
 * win); then the duplicate is deleted. Emits lead.updated for the survivor and lead.deleted for the
 * duplicate. The bulk re-pointing is raw SQL, so each statement names the scope explicitly.
 */
export async function mergeLeads(ctx: DomainContext, survivorId: string, duplicateId: string): Promise<Lead> {
  if (survivorId === duplicateId) throw validationFailed([{ field: 'duplicateId', message: 'Cannot merge a lead into itself' }]);
  const { survivor, events } = await ctx.db.transaction(async (m) => {
    const leads = scoped(m, Lead, ctx.scope);
    const [survivor, duplicate] = await Promise.all([
      leads.query('l').andWhere('l.id = :id', { id: survivorId }).setLock('pessimistic_write').getOne(),
      leads.query('l').andWhere('l.id = :id', { id: duplicateId }).setLock('pessimistic_write').getOne(),
    ]);
    if (!survivor) throw notFound('Lead');
    if (!duplicate) throw validationFailed([{ field: 'duplicateId', message: 'Lead not found' }]);
    const scope = [ctx.scope.tenantId, ctx.scope.environment];
    // A lead converts once: the duplicate's conversion becomes an ordinary deal when both converted.
    if (survivor.convertedAt && duplicate.convertedAt) {
      await m.query(`UPDATE opportunities SET converted_from_lead = false WHERE tenant_id = $1 AND environment = $2 AND lead_id = $3`, [
        ...scope,
        duplicateId,
      ]);
    }
    for (const table of LEAD_REFERENCES) {
      await m.query(`UPDATE ${table} SET lead_id = $4 WHERE tenant_id = $1 AND environment = $2 AND lead_id = $3`, [
        ...scope,
        duplicateId,
        survivorId,
      ]);
    }
    await m.query(`UPDATE files SET entity_id = $4 WHERE tenant_id = $1 AND environment = $2 AND entity_type = 'lead' AND entity_id = $3`, [
      ...scope,
      duplicateId,
      survivorId,
    ]);
    await deleteIdentities(m, ctx.scope, duplicateId);

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
    changes.mergedLeadId = encodeId('lead', duplicateId);
    const saved = await leads.save(survivor);
    await leads.deleteById(duplicateId);
    await removeFromIndex(m, ctx.scope, 'lead', encodeId('lead', duplicateId));
    await indexLead(m, ctx.scope, saved);
    await syncIdentities(m, ctx.scope, saved); // the survivor may have taken the duplicate's phone
    const events = [
      await emitEvent(m, ctx.scope, 'lead.updated', eventPayloads['lead.updated']({ id: survivorId, changes })),
      await emitEvent(m, ctx.scope, 'lead.deleted', eventPayloads['lead.deleted'](duplicate)),
    ];
    return { survivor: saved, events };
  });
  await relayAfterCommit(ctx.db, ctx.workflows, events, ctx.webhooks?.relayHooks);
  return survivor;
}
