import { Lead, Opportunity } from '../../db/entities';
import { notFound } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { removeFromIndex } from '../search-index';
import { detachFiles } from '../files';
import type { OpportunityCreate, OpportunityListQuery, OpportunityUpdate } from '../../contracts/opportunity';
import type { DomainContext } from '../context';
import { earnCommissionForWonDeal, reverseCommissionForDeal } from '../commissions';
import { assertAssignable, assertExists, findForUpdate } from '../scoped-lookups';
import { holdStage, resolveStage, stageEffects } from './stages';
import { unitOfWork, type UnitOfWork } from '../unit-of-work';

export async function createOpportunity(ctx: DomainContext, input: OpportunityCreate): Promise<Opportunity> {
  return unitOfWork(ctx, async (tx) => {
    await assertExists(tx, Lead, input.leadId, 'leadId', 'Lead');
    await assertAssignable(tx, input.ownerId, 'ownerId');
    // Held until the commit, so a concurrent delete or change of the stage waits for this deal, then refuses.
    const stage = await holdStage(tx, input.stageId);
    const effects = stageEffects(stage);
    const opportunity = await tx.repo(Opportunity).insert({
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
    await tx.emit('opportunity.created', opportunity);
    await recordOutcome(tx, opportunity);
    return opportunity;
  });
}

export async function getOpportunity(ctx: DomainContext, id: string): Promise<Opportunity> {
  const o = await ctx.data.repo(Opportunity).findById(id);
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
  const qb = ctx.data.repo(Opportunity).select('o');
  if (q.stage) qb.andWhere('o.stage IN (:...stage)', { stage: q.stage });
  if (q.leadId) qb.andWhere('o.lead_id = :leadId', { leadId: q.leadId });
  if (q.ownerId) qb.andWhere('o.owner_user_id = :ownerId', { ownerId: q.ownerId });
  if (q.status) qb.andWhere('o.status IN (:...status)', { status: q.status });
  if (q.valueMin !== undefined) qb.andWhere('o.value >= :valueMin', { valueMin: q.valueMin });
  if (q.valueMax !== undefined) qb.andWhere('o.value <= :valueMax', { valueMax: q.valueMax });
  if (q.createdFrom) qb.andWhere('o.created_at >= :from', { from: q.createdFrom });
  if (q.createdTo) qb.andWhere('o.created_at <= :to', { to: q.createdTo });
  const [rows, total] = await qb
    .orderBy(SORT[q.sort.field], q.sort.direction, 'NULLS LAST')
    .addOrderBy('o.id', q.sort.direction)
    .page(q.page, q.limit);
  return { rows, total };
}

/**
 * Applies a PATCH. A stage change emits opportunity.stage_changed, and entering a closed stage
 * also opportunity.won or opportunity.lost (with the reason). Probability follows the stage
 * unless it was set explicitly (null hands it back to the stage).
 */
export async function updateOpportunity(ctx: DomainContext, id: string, patch: OpportunityUpdate): Promise<Opportunity> {
  return unitOfWork(ctx, async (tx) => {
    const repo = tx.repo(Opportunity);
    const o = await repo.select('o').andWhere('o.id = :id', { id }).setLock('pessimistic_write').getOne();
    if (!o) throw notFound('Opportunity');
    await assertAssignable(tx, patch.ownerId, 'ownerId', o.ownerUserId);
    const wasWon = o.status === 'won';
    const valueChanged =
      (patch.value !== undefined && patch.value !== o.value) || (patch.currency !== undefined && patch.currency !== o.currency);
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
      const stage = await holdStage(tx, patch.stageId);
      const effects = stageEffects(stage);
      const from = o.stage;
      o.stageId = stage.id;
      o.stage = stage.code;
      await tx.emit('opportunity.stage_changed', { id: o.id, from, to: stage.code });
      if (effects.status !== o.status) {
        o.status = effects.status;
        o.closedAt = effects.status === 'open' ? null : new Date();
        o.lostReason = effects.status === 'lost' ? (patch.lostReason ?? null) : null;
        if (wasWon) await reverseCommissionForDeal(tx, o.id, effects.status === 'lost' ? 'deal_lost' : 'deal_reopened');
        await recordOutcome(tx, o);
      }
      if (!o.probabilityOverridden) o.probability = effects.defaultProbability;
    } else if (patch.probability === null) {
      o.probability = stageEffects(await resolveStage(tx, o.stageId)).defaultProbability;
    }
    if (patch.lostReason !== undefined && o.status === 'lost') o.lostReason = patch.lostReason;
    // A won deal's new value restates its commission: the old amount reversed, the new one earned.
    if (wasWon && o.status === 'won' && valueChanged) {
      await reverseCommissionForDeal(tx, o.id, 'deal_value_changed');
      await commissionFor(tx, o);
    }
    return repo.save(o);
  });
}

/**
 * A deal that enters a closed stage, whether by a stage change, created there or converted there
 * (a CRM sync of deals already won), emits opportunity.won or opportunity.lost, and a win earns
 * the referring partner's commission.
 */
export async function recordOutcome(tx: UnitOfWork, o: Opportunity): Promise<void> {
  if (o.status === 'won') {
    await tx.emit('opportunity.won', o);
    await commissionFor(tx, o);
  }
  if (o.status === 'lost') await tx.emit('opportunity.lost', { id: o.id, reason: o.lostReason });
}

/** A won deal of a lead a partner referred earns that partner a commission (one per deal). */
async function commissionFor(tx: UnitOfWork, o: Opportunity): Promise<void> {
  if (!o.leadId) return;
  await earnCommissionForWonDeal(tx, {
    leadId: o.leadId,
    opportunityId: o.id,
    value: o.value,
    currency: o.currency,
  });
}

export function deleteOpportunity(ctx: DomainContext, id: string): Promise<Opportunity> {
  return unitOfWork(ctx, async (tx) => {
    const o = await findForUpdate(tx, Opportunity, id, 'Opportunity');
    if (o.status === 'won') await reverseCommissionForDeal(tx, o.id, 'deal_deleted');
    await tx.repo(Opportunity).deleteById(id);
    await detachFiles(tx, 'opportunity', id);
    // A posted search document of the deal goes with it, as a deleted lead's does.
    await removeFromIndex(tx, 'opportunity', encodeId('opportunity', id));
    return o;
  });
}
