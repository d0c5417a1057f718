import { Lead, Opportunity, type PendingEnrollment } from '../../db/entities';
import { holdsLeadStatus } from '../leads/statuses';
import type { TenantScope } from '../../db/scoped-repository';
import { AppError } from '../../lib/errors';
import { recordPendingEnrollment, startPendingEnrollment } from '../campaigns/auto-enroll';
import { indexLead } from '../search-index';
import { unitOfWork, type UnitOfWork, type UnitOfWorkContext } from '../unit-of-work';
import { recordOutcome } from './opportunities';
import { holdStage, stageEffects } from './stages';

const QUALIFIED = 'qualified';

export interface ConvertLeadInput {
  scope: TenantScope;
  actorUserId: string;
  leadId: string;
  value?: number;
  currency?: string;
  stageId?: string;
  name?: string;
}

export type ConversionOutcome =
  | { outcome: 'created'; opportunityId: string }
  | { outcome: 'already_converted'; opportunityId: string }
  | { outcome: 'lead_not_found' }
  | { outcome: 'stage_not_found' };

/**
 * Converts a lead in one transaction: the lead row is locked, so two conversions of the same lead
 * serialize and the second sees the first's opportunity (the partial unique index is the
 * backstop). Creates the opportunity, marks the lead converted and writes opportunity.created and
 * lead.updated to the outbox. A lead that becomes qualified here is re-indexed and enrolled in the
 * `lead_status_changed` campaigns, as a PATCH of its status would. Running it again for a converted
 * lead changes nothing.
 */
export async function convertLead(ctx: Omit<UnitOfWorkContext, 'scope'>, input: ConvertLeadInput): Promise<ConversionOutcome> {
  const { outcome, pending } = await unitOfWork({ ...ctx, scope: input.scope }, (tx) => convertInTransaction(tx, input));
  startPendingEnrollment(ctx, pending);
  return outcome;
}

async function convertInTransaction(
  tx: UnitOfWork,
  input: ConvertLeadInput,
): Promise<{ outcome: ConversionOutcome; pending: PendingEnrollment | null }> {
  const lead = await tx.repo(Lead).findByIdForUpdate(input.leadId);
  if (!lead) return { outcome: { outcome: 'lead_not_found' }, pending: null };
  const existing = await tx.repo(Opportunity).findOne({ leadId: lead.id, convertedFromLead: true });
  if (existing) return { outcome: { outcome: 'already_converted', opportunityId: existing.id }, pending: null };
  let stage;
  try {
    // Held until the commit, as every write of a deal's stage (stages.ts).
    stage = await holdStage(tx, input.stageId);
  } catch (err) {
    if (err instanceof AppError && err.code === 'validation_failed') return { outcome: { outcome: 'stage_not_found' }, pending: null };
    throw err;
  }
  const effects = stageEffects(stage);
  const opportunity = await tx.repo(Opportunity).insert({
    leadId: lead.id,
    convertedFromLead: true,
    name: input.name ?? `${lead.firstName} ${lead.lastName}`.trim(),
    value: input.value ?? 0,
    currency: input.currency ?? 'USD',
    stageId: stage.id,
    stage: stage.code,
    status: effects.status,
    probability: effects.defaultProbability,
    ownerUserId: lead.assignedTo ?? input.actorUserId,
    closedAt: effects.status === 'open' ? null : new Date(),
  });
  const changes: Record<string, unknown> = {};
  // A tenant that deleted its `qualified` status keeps the lead's own: no lead gets an undefined status
  // (held until the commit, so a concurrent delete of it waits and then finds this lead).
  if (lead.status !== QUALIFIED && (await holdsLeadStatus(tx, QUALIFIED))) changes.status = lead.status = QUALIFIED;
  lead.convertedAt = new Date();
  changes.convertedAt = lead.convertedAt.toISOString();
  const saved = await tx.repo(Lead).save(lead);
  if ('status' in changes) await indexLead(tx, saved);
  await tx.emit('opportunity.created', { id: opportunity.id, value: opportunity.value, stage: opportunity.stage });
  await recordOutcome(tx, opportunity);
  await tx.emit('lead.updated', { id: lead.id, changes });
  const pending = 'status' in changes ? await recordPendingEnrollment(tx, 'lead_status_changed', [lead.id], input.actorUserId) : null;
  return { outcome: { outcome: 'created', opportunityId: opportunity.id }, pending };
}
