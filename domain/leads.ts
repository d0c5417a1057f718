import { Lead, LeadDuplicate, type OutboxEvent } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { notFound } from '../lib/errors';
import { encodeId } from '../lib/ids';
import type { StartOptions } from '../lib/temporal/workflow-starter';
import { workflowIds } from '../workflows/ids';
import { leadDedupeWorkflow } from '../workflows/lead-dedupe';
import type { LeadCreate, LeadUpdate } from '../api/schemas/lead';
import { enrollByTrigger } from './campaigns/auto-enroll';
import type { DomainContext } from './context';
import { resolveLeadStatus } from './lead-statuses';
import { normalizeEmail, normalizePhone } from './normalize';
import { resolveReferralCode } from './referral-codes';
import { indexLead, removeFromIndex } from './search-index';
import { emitEvent } from './webhooks/emit-event';
import { relayAfterCommit } from './webhooks/relay';
import { eventPayloads } from './webhooks/webhook-events';

export interface LeadFilters {
  page: number;
  limit: number;
  sort: { field: 'createdAt' | 'updatedAt' | 'score' | 'email' | 'lastName'; direction: 'ASC' | 'DESC' };
  status?: string;
  source?: string;
  assignedTo?: string;
  q?: string;
  scoreMin?: number;
  scoreMax?: number;
  createdFrom?: string;
  createdTo?: string;
  /** customFields.<key>=<value>: exact match on the value's text. */
  customFields?: Record<string, string>;
}

export async function createLead(ctx: DomainContext, input: LeadCreate): Promise<Lead> {
  const { lead, event } = await ctx.db.transaction(async (manager) => {
    const partner = input.referralCode ? await resolveReferralCode(manager, ctx.scope, input.referralCode, 'referralCode') : null;
    const lead = await scoped(manager, Lead, ctx.scope).insert({
      email: input.email,
      emailNormalized: normalizeEmail(input.email),
      firstName: input.firstName,
      lastName: input.lastName,
      phone: input.phone ?? null,
      phoneNormalized: normalizePhone(input.phone),
      source: input.source ?? (partner ? 'referral' : 'api'),
      status: await resolveLeadStatus(manager, ctx.scope, input.status),
      score: input.score ?? 0,
      assignedTo: input.assignedTo ?? ctx.actorUserId,
      createdBy: ctx.actorUserId,
      customFields: input.customFields ?? {},
      partnerId: partner?.id ?? null,
    });
    await indexLead(manager, ctx.scope, lead);
    const event = await emitEvent(manager, ctx.scope, 'lead.created', eventPayloads['lead.created'](lead));
    return { lead, event };
  });
  await relayEvents(ctx, [event]);
  startDuplicateDetection(ctx, lead);
  await enrollByTrigger(ctx, lead, 'lead_created');
  return lead;
}

/**
 * Duplicate detection is asynchronous (spec part 3), and so is its start: the request does not
 * wait for Temporal. A lead whose start was dropped or lost stays unchecked
 * (duplicates_checked_at null) until the lead-dedupe sweep starts its workflow.
 */
function startDuplicateDetection(ctx: DomainContext, lead: Lead): void {
  ctx.workflows.startSoon(leadDedupeWorkflow, leadDedupeStart(lead));
}

export function leadDedupeStart(lead: Pick<Lead, 'id' | 'tenantId' | 'environment' | 'email'>): StartOptions<typeof leadDedupeWorkflow> {
  const leadId = encodeId('lead', lead.id);
  return {
    workflowId: workflowIds.leadDedupe(leadId),
    args: [{ tenantId: lead.tenantId, environment: lead.environment, leadId: lead.id }],
    searchAttributes: { tenantId: encodeId('tenant', lead.tenantId), environment: lead.environment, leadId },
    memo: { summary: `Duplicate check for ${lead.email}` },
  };
}

export async function getLead(ctx: DomainContext, id: string): Promise<Lead> {
  const lead = await scoped(ctx.db.manager, Lead, ctx.scope).findById(id);
  if (!lead) throw notFound('Lead');
  return lead;
}

const SORT_COLUMNS: Record<LeadFilters['sort']['field'], string> = {
  createdAt: 'l.created_at',
  updatedAt: 'l.updated_at',
  score: 'l.score',
  email: 'l.email_normalized',
  lastName: 'l.last_name',
};

export async function listLeads(ctx: DomainContext, f: LeadFilters): Promise<{ rows: Lead[]; total: number }> {
  const qb = scoped(ctx.db.manager, Lead, ctx.scope).query('l');
  if (f.status) qb.andWhere('l.status = :status', { status: f.status });
  if (f.source) qb.andWhere('l.source = :source', { source: f.source });
  if (f.assignedTo) qb.andWhere('l.assigned_to = :assignedTo', { assignedTo: f.assignedTo });
  if (f.scoreMin !== undefined) qb.andWhere('l.score >= :scoreMin', { scoreMin: f.scoreMin });
  if (f.scoreMax !== undefined) qb.andWhere('l.score <= :scoreMax', { scoreMax: f.scoreMax });
  if (f.createdFrom) qb.andWhere('l.created_at >= :createdFrom', { createdFrom: f.createdFrom });
  if (f.createdTo) qb.andWhere('l.created_at <= :createdTo', { createdTo: f.createdTo });
  for (const [i, [key, value]] of Object.entries(f.customFields ?? {}).entries()) {
    qb.andWhere(`l.custom_fields ->> :cfKey${i} = :cfValue${i}`, { [`cfKey${i}`]: key, [`cfValue${i}`]: value });
  }
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;
    qb.andWhere("(l.email_normalized LIKE :like OR lower(l.first_name || ' ' || l.last_name) LIKE :like)", { like });
  }
  qb.orderBy(SORT_COLUMNS[f.sort.field], f.sort.direction)
    .addOrderBy('l.id', f.sort.direction)
    .skip((f.page - 1) * f.limit)
    .take(f.limit);
  const [rows, total] = await qb.getManyAndCount();
  return { rows, total };
}

export async function updateLead(ctx: DomainContext, id: string, patch: LeadUpdate): Promise<Lead> {
  const { lead, events, statusChanged } = await ctx.db.transaction(async (manager) => {
    const leads = scoped(manager, Lead, ctx.scope);
    const lead = await leads.findByIdForUpdate(id);
    if (!lead) throw notFound('Lead');
    if (patch.status !== undefined) patch = { ...patch, status: await resolveLeadStatus(manager, ctx.scope, patch.status) };
    const { customFields, ...fields } = patch;
    const changes = changedFields(lead, fields, customFields);
    Object.assign(lead, fields);
    if (patch.email) lead.emailNormalized = normalizeEmail(patch.email);
    if (patch.phone !== undefined) lead.phoneNormalized = normalizePhone(patch.phone);
    if (customFields) lead.customFields = { ...lead.customFields, ...customFields };
    const saved = await leads.save(lead);
    await indexLead(manager, ctx.scope, saved);
    const events = Object.keys(changes).length
      ? [await emitEvent(manager, ctx.scope, 'lead.updated', eventPayloads['lead.updated']({ id: lead.id, changes }))]
      : [];
    return { lead: saved, events, statusChanged: 'status' in changes };
  });
  await relayEvents(ctx, events);
  if (statusChanged) await enrollByTrigger(ctx, lead, 'lead_status_changed');
  return lead;
}

/** The fields a patch really changes, with their new values (IDs encoded, custom fields per key). */
function changedFields(lead: Lead, fields: Omit<LeadUpdate, 'customFields'>, customFields: LeadUpdate['customFields']) {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields) as [keyof typeof fields, unknown][]) {
    if (value === undefined || lead[key] === value) continue;
    changes[key] = key === 'assignedTo' && value !== null ? encodeId('user', value as string) : value;
  }
  const customChanges = Object.entries(customFields ?? {}).filter(([k, v]) => lead.customFields[k] !== v);
  if (customChanges.length) changes.customFields = Object.fromEntries(customChanges);
  return changes;
}

export async function deleteLead(ctx: DomainContext, id: string): Promise<Lead> {
  const { lead, event } = await ctx.db.transaction(async (manager) => {
    const leads = scoped(manager, Lead, ctx.scope);
    const lead = await leads.findById(id);
    if (!lead) throw notFound('Lead');
    await leads.deleteById(id);
    await removeFromIndex(manager, ctx.scope, 'lead', encodeId('lead', id));
    const event = await emitEvent(manager, ctx.scope, 'lead.deleted', eventPayloads['lead.deleted'](lead));
    return { lead, event };
  });
  await relayEvents(ctx, [event]);
  return lead;
}

const relayEvents = (ctx: DomainContext, events: OutboxEvent[]) =>
  relayAfterCommit(ctx.db, ctx.workflows, events, ctx.webhooks?.relayHooks);

export async function listDuplicates(ctx: DomainContext, id: string): Promise<{ lead: Lead; reasons: string[] }[]> {
  await getLead(ctx, id);
  const pairs = await scoped(ctx.db.manager, LeadDuplicate, ctx.scope).find({ where: { leadId: id }, order: { id: 'ASC' } });
  const leads = scoped(ctx.db.manager, Lead, ctx.scope);
  const out: { lead: Lead; reasons: string[] }[] = [];
  for (const p of pairs) {
    const other = await leads.findById(p.duplicateLeadId);
    if (other) out.push({ lead: other, reasons: p.reasons });
  }
  return out;
}
