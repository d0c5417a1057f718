import { Lead, Opportunity } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { AppError } from '../../lib/errors';
import { unitOfWork, type UnitOfWorkContext } from '../unit-of-work';
import { resolveStage, stageEffects } from './stages';

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
 * lead.updated to the outbox. Running it again for a converted lead changes nothing.
 */
export async function convertLead(ctx: Omit<UnitOfWorkContext, 'scope'>, input: ConvertLeadInput): Promise<ConversionOutcome> {
  return unitOfWork({ ...ctx, scope: input.scope }, async (tx) => {
    const lead = await tx.repo(Lead).findByIdForUpdate(input.leadId);
    if (!lead) return { outcome: 'lead_not_found' };
    const existing = await tx.repo(Opportunity).findOne({ leadId: lead.id, convertedFromLead: true });
    if (existing) return { outcome: 'already_converted', opportunityId: existing.id };
    let stage;
    try {
      stage = await resolveStage(tx, input.stageId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return { outcome: 'stage_not_found' };
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
    if (lead.status !== 'qualified') changes.status = lead.status = 'qualified';
    lead.convertedAt = new Date();
    changes.convertedAt = lead.convertedAt.toISOString();
    await tx.repo(Lead).save(lead);
    await tx.emit('opportunity.created', { id: opportunity.id, value: opportunity.value, stage: opportunity.stage });
    await tx.emit('lead.updated', { id: lead.id, changes });
    return { outcome: 'created', opportunityId: opportunity.id };
  });
}
