import { Commission, Lead, Partner, type OutboxEvent } from '../db/entities';
import type { CommissionStatus } from '../db/entities/commission';
import type { PartnerTier } from '../db/entities/partner';
import type { CommissionCreate, CommissionListQuery } from '../contracts/commission';
import type { DomainContext } from './context';
import { validationFailed } from '../lib/errors';
import { findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { nextState, type Transitions } from './transitions';
import { unitOfWork, type UnitOfWork } from './unit-of-work';

/** Share of a won deal's value a partner earns, by tier. */
const TIER_RATES: Record<PartnerTier, number> = { bronze: 0.05, silver: 0.075, gold: 0.1, platinum: 0.125 };

const COMMISSION_ACTIONS = { pay: { from: ['earned'], to: 'paid' } } as const satisfies Transitions<CommissionStatus, 'pay'>;

const toCents = (v: number) => Math.round(v * 100) / 100;

export function createCommission(ctx: DomainContext, input: CommissionCreate): Promise<Commission> {
  return unitOfWork(ctx, async (tx) => {
    const partner = await tx.repo(Partner).findById(input.partnerId);
    if (!partner) throw validationFailed([{ field: 'partnerId', message: 'Partner not found' }]);
    // As a won deal earns only an approved partner anything, so does a commission recorded by hand.
    if (partner.status !== 'approved') {
      throw validationFailed([
        { field: 'partnerId', message: `Partner is ${partner.status}; only an approved partner earns commissions (approve it first)` },
      ]);
    }
    const commission = await tx.repo(Commission).insert({
      partnerId: input.partnerId,
      amount: input.amount,
      currency: input.currency,
      status: 'earned',
      rate: null,
      leadId: null,
      opportunityId: null,
      note: input.note ?? null,
      paidAt: null,
    });
    await tx.emit('commission.earned', commission);
    return commission;
  });
}

export const getCommission = (ctx: DomainContext, id: string) => findOrFail(ctx.data, Commission, id, 'Commission');

export function listCommissions(ctx: DomainContext, f: CommissionListQuery) {
  const qb = ctx.data.repo(Commission).select('c');
  if (f.partnerId) qb.andWhere('c.partner_id = :partnerId', { partnerId: f.partnerId });
  if (f.status) qb.andWhere('c.status IN (:...status)', { status: f.status });
  qb.orderBy('c.created_at', 'DESC').addOrderBy('c.id', 'DESC');
  return pageOf(qb, f.page, f.limit);
}

export function payCommission(ctx: DomainContext, id: string): Promise<Commission> {
  return unitOfWork(ctx, async (tx) => {
    const commission = await findForUpdate(tx, Commission, id, 'Commission');
    commission.status = nextState('commission', COMMISSION_ACTIONS, commission.status, 'pay');
    commission.paidAt = new Date();
    const saved = await tx.repo(Commission).save(commission);
    await tx.emit('commission.paid', saved);
    return saved;
  });
}

export interface WonDeal {
  leadId: string;
  opportunityId: string;
  value: number;
  currency?: string;
}

/** Why a deal's commission was reversed (the commission.reversed event's `reason`). */
export type ReversalReason = 'deal_reopened' | 'deal_lost' | 'deal_deleted' | 'deal_value_changed';

/** The commission of a deal, locked: a payout and a reversal of one commission cannot both win. */
const dealCommission = (tx: UnitOfWork, opportunityId: string) =>
  tx.repo(Commission).select('c').andWhere('c.opportunity_id = :opportunityId', { opportunityId }).setLock('pessimistic_write').getOne();

/**
 * For the opportunities work to call inside the transaction that marks a deal won. When the deal's
 * lead came through an approved partner, records that partner's commission at its tier's rate and
 * emits commission.earned with the caller's unit of work. Returns null when nothing is owed. A deal
 * has one commission: calling this again while it is earned or paid changes nothing; after a
 * reversal it is earned again, at the deal's value and the partner's tier now, by the partner it
 * was first earned for. A merge may since have moved the deal to a lead another partner referred,
 * or the lead may have been deleted: neither takes the referral away from the partner who made it.
 */
export async function earnCommissionForWonDeal(
  tx: UnitOfWork,
  deal: WonDeal,
): Promise<{ commission: Commission; event: OutboxEvent | null } | null> {
  const existing = await dealCommission(tx, deal.opportunityId);
  if (existing && existing.status !== 'reversed') return { commission: existing, event: null };
  const partnerId = existing ? existing.partnerId : (await tx.repo(Lead).findById(deal.leadId))?.partnerId;
  const partner = partnerId ? await tx.repo(Partner).findById(partnerId) : null;
  if (!partner || partner.status !== 'approved') return null;
  const rate = TIER_RATES[partner.tier];
  const amount = toCents(deal.value * rate);
  if (amount <= 0) return null;
  const earned = { amount, currency: deal.currency ?? 'USD', status: 'earned' as const, rate };
  const commissions = tx.repo(Commission);
  const commission = existing
    ? await commissions.save(Object.assign(existing, earned))
    : await commissions.insert({
        ...earned,
        partnerId: partner.id,
        leadId: deal.leadId,
        opportunityId: deal.opportunityId,
        note: null,
        paidAt: null,
      });
  const event = await tx.emit('commission.earned', commission);
  return { commission, event };
}

/**
 * A deal's commission follows the deal until it is paid: when the won deal is reopened, lost,
 * deleted or its value changes, an earned commission is reversed (commission.reversed) and
 * cannot be paid. A paid one stays paid: the money went out, and getting it back is between the
 * tenant and the partner.
 */
export async function reverseCommissionForDeal(tx: UnitOfWork, opportunityId: string, reason: ReversalReason): Promise<void> {
  const commission = await dealCommission(tx, opportunityId);
  if (commission?.status !== 'earned') return;
  commission.status = 'reversed';
  const saved = await tx.repo(Commission).save(commission);
  await tx.emit('commission.reversed', { ...saved, reason });
}
