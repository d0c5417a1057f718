import type { EntityManager } from 'typeorm';
import { Lead, Opportunity, User } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { notFound, validationFailed } from '../../lib/errors';
import type { OpportunityCreate, OpportunityListQuery, OpportunityUpdate } from '../../api/schemas/opportunity';
import type { DomainContext } from '../context';
import { emitEvent } from '../webhooks/emit-event';
import { relayAfterCommit } from '../webhooks/relay';
import { eventPayloads } from '../webhooks/webhook-events';
import type { OutboxEvent } from '../../db/entities';
import { earnCommissionForWonDeal } from '../commissions';
import { resolveStage, stageEffects } from './stages';
import { countedPage } from '../../db/counted-page';

async function assertExists(
  m: EntityManager,
  ctx: DomainContext,
  entity: typeof Lead | typeof User,
  id: string | undefined,
  field: string,
) {
  if (id === undefined) return;
  if (!(await scoped<Lead | User>(m, entity, ctx.scope).findById(id)))
    throw validationFailed([{ field, message: `${entity === Lead ? 'Lead' : 'User'} not found` }]);
}

const relay = (ctx: DomainContext, events: OutboxEvent[]) => relayAfterCommit(ctx.db, ctx.workflows, events, ctx.webhooks?.relayHooks);

export async function createOpportunity(ctx: DomainContext, input: OpportunityCreate): Promise<Opportunity> {
  const { opportunity, events } = await ctx.db.transaction(async (m) => {
    await assertExists(m, ctx, Lead, input.leadId, 'leadId');
    await assertExists(m, ctx, User, input.ownerId, 'ownerId');
    const stage = await resolveStage(m, ctx.scope, input.stageId);
    const effects = stageEffects(stage);
    const opportunity = await scoped(m, Opportunity, ctx.scope).insert({
      name: input.name,
      leadId: input.leadId ?? null,
      value: input.value,
      currency: input.currency,
      stageId: stage.id,
      stage: stage.code,
      status: effects.status,
      probability: input.probability ?? effects.defaultProbability,
      probabilityOverridden: input.probability !== undefined,
      ownerUserId: input.ownerId ?? ctx.actorUserId,
      expectedCloseDate: input.expectedCloseDate ?? null,
      closedAt: effects.status === 'open' ? null : new Date(),
    });
    const created = await emitEvent(m, ctx.scope, 'opportunity.created', eventPayloads['opportunity.created'](opportunity));
    return { opportunity, events: [created] };
  });
  await relay(ctx, events);
  return opportunity;
}

export async function getOpportunity(ctx: DomainContext, id: string): Promise<Opportunity> {
  const o = await scoped(ctx.db.manager, Opportunity, ctx.scope).findById(id);
  if (!o) throw notFound('Opportunity');
  return o;
}

const SORT: Record<OpportunityListQuery['sort']['field'], string> = {
  createdAt: 'o.created_at',
  value: 'o.value',
  probability: 'o.probability',
  expectedCloseDate: 'o.expected_close_date',
};

export async function listOpportunities(ctx: DomainContext, q: OpportunityListQuery) {
  const qb = scoped(ctx.db.manager, Opportunity, ctx.scope).query('o');
  if (q.stage) qb.andWhere('o.stage = :stage', { stage: q.stage });
  if (q.leadId) qb.andWhere('o.lead_id = :leadId', { leadId: q.leadId });
  if (q.ownerId) qb.andWhere('o.owner_user_id = :ownerId', { ownerId: q.ownerId });
  if (q.status) qb.andWhere('o.status = :status', { status: q.status });
  if (q.valueMin !== undefined) qb.andWhere('o.value >= :valueMin', { valueMin: q.valueMin });
  if (q.valueMax !== undefined) qb.andWhere('o.value <= :valueMax', { valueMax: q.valueMax });
  if (q.createdFrom) qb.andWhere('o.created_at >= :from', { from: q.createdFrom });
  if (q.createdTo) qb.andWhere('o.created_at <= :to', { to: q.createdTo });
  const [rows, total] = await countedPage(
    qb.orderBy(SORT[q.sort.field], q.sort.direction, 'NULLS LAST').addOrderBy('o.id', q.sort.direction),
    q.page,
    q.limit,
  );
  return { rows, total };
}

/**
 * Applies a PATCH. A stage change emits opportunity.stage_changed, and entering a closed stage
 * also opportunity.won or opportunity.lost (with the reason). Probability follows the stage
 * unless it was set explicitly (null hands it back to the stage).
 */
export async function updateOpportunity(ctx: DomainContext, id: string, patch: OpportunityUpdate): Promise<Opportunity> {
  const { opportunity, events } = await ctx.db.transaction(async (m) => {
    const repo = scoped(m, Opportunity, ctx.scope);
    const o = await repo.query('o').andWhere('o.id = :id', { id }).setLock('pessimistic_write').getOne();
    if (!o) throw notFound('Opportunity');
    await assertExists(m, ctx, User, patch.ownerId, 'ownerId');
    const events: OutboxEvent[] = [];
    if (patch.name !== undefined) o.name = patch.name;
    if (patch.value !== undefined) o.value = patch.value;
    if (patch.currency !== undefined) o.currency = patch.currency;
    if (patch.ownerId !== undefined) o.ownerUserId = patch.ownerId;
    if (patch.expectedCloseDate !== undefined) o.expectedCloseDate = patch.expectedCloseDate;
    if (patch.probability !== undefined) {
      o.probabilityOverridden = patch.probability !== null;
      if (patch.probability !== null) o.probability = patch.probability;
    }
    if (patch.stageId !== undefined && patch.stageId !== o.stageId) {
      const stage = await resolveStage(m, ctx.scope, patch.stageId);
      const effects = stageEffects(stage);
      const from = o.stage;
      o.stageId = stage.id;
      o.stage = stage.code;
      events.push(
        await emitEvent(
          m,
          ctx.scope,
          'opportunity.stage_changed',
          eventPayloads['opportunity.stage_changed']({ id: o.id, from, to: stage.code }),
        ),
      );
      if (effects.status !== o.status) {
        o.status = effects.status;
        o.closedAt = effects.status === 'open' ? null : new Date();
        o.lostReason = effects.status === 'lost' ? (patch.lostReason ?? null) : null;
        if (effects.status === 'won') {
          events.push(await emitEvent(m, ctx.scope, 'opportunity.won', eventPayloads['opportunity.won'](o)));
          events.push(...(await commissionFor(m, ctx, o)));
        }
        if (effects.status === 'lost')
          events.push(
            await emitEvent(m, ctx.scope, 'opportunity.lost', eventPayloads['opportunity.lost']({ id: o.id, reason: o.lostReason })),
          );
      }
      if (!o.probabilityOverridden) o.probability = effects.defaultProbability;
    } else if (patch.probability === null) {
      o.probability = stageEffects(await resolveStage(m, ctx.scope, o.stageId)).defaultProbability;
    }
    if (patch.lostReason !== undefined && o.status === 'lost') o.lostReason = patch.lostReason;
    return { opportunity: await repo.save(o), events };
  });
  await relay(ctx, events);
  return opportunity;
}

/** A won deal of a lead a partner referred earns that partner a commission (once per deal). */
async function commissionFor(m: EntityManager, ctx: DomainContext, o: Opportunity): Promise<OutboxEvent[]> {
  if (!o.leadId) return [];
  const earned = await earnCommissionForWonDeal(m, ctx.scope, {
    leadId: o.leadId,
    opportunityId: o.id,
    value: o.value,
    currency: o.currency,
  });
  return earned?.event ? [earned.event] : [];
}

export async function deleteOpportunity(ctx: DomainContext, id: string): Promise<Opportunity> {
  const o = await getOpportunity(ctx, id);
  await scoped(ctx.db.manager, Opportunity, ctx.scope).deleteById(id);
  return o;
}
