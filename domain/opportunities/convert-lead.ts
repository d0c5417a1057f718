import type { DataSource } from 'typeorm';
import { Lead, Opportunity } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { AppError } from '../../lib/errors';
import type { OutboxEvent } from '../../db/entities';
import { emitEvent } from '../webhooks/emit-event';
import { eventPayloads } from '../webhooks/webhook-events';
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
export async function convertLead(db: DataSource, input: ConvertLeadInput): Promise<{ result: ConversionOutcome; events: OutboxEvent[] }> {
  return db.transaction(async (m) => {
    const lead = await scoped(m, Lead, input.scope).findByIdForUpdate(input.leadId);
    if (!lead) return { result: { outcome: 'lead_not_found' }, events: [] };
    const existing = await scoped(m, Opportunity, input.scope).findOne({ leadId: lead.id, convertedFromLead: true });
    if (existing) return { result: { outcome: 'already_converted', opportunityId: existing.id }, events: [] };
    let stage;
    try {
      stage = await resolveStage(m, input.scope, input.stageId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return { result: { outcome: 'stage_not_found' }, events: [] };
      throw err;
    }
    const effects = stageEffects(stage);
    const opportunity = await scoped(m, Opportunity, input.scope).insert({
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
    await scoped(m, Lead, input.scope).save(lead);
    const events = [
      await emitEvent(
        m,
        input.scope,
        'opportunity.created',
        eventPayloads['opportunity.created']({ id: opportunity.id, value: opportunity.value, stage: opportunity.stage }),
      ),
      await emitEvent(m, input.scope, 'lead.updated', eventPayloads['lead.updated']({ id: lead.id, changes })),
    ];
    return { result: { outcome: 'created', opportunityId: opportunity.id }, events };
  });
}
