import { Commission, Lead, Partner, type OutboxEvent } from '../db/entities';
import type { CommissionStatus } from '../db/entities/commission';
import type { PartnerTier } from '../db/entities/partner';
import type { CommissionCreate, CommissionListQuery } from '../contracts/commission';
import type { DomainContext } from './context';
import { assertExists, findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { nextState, type Transitions } from './transitions';
import { unitOfWork, type UnitOfWork } from './unit-of-work';

/** Share of a won deal's value a partner earns, by tier. */
const TIER_RATES: Record<PartnerTier, number> = { bronze: 0.05, silver: 0.075, gold: 0.1, platinum: 0.125 };

const COMMISSION_ACTIONS = { pay: { from: ['earned'], to: 'paid' } } as const satisfies Transitions<CommissionStatus, 'pay'>;

const toCents = (v: number) => Math.round(v * 100) / 100;

export function createCommission(ctx: DomainContext, input: CommissionCreate): Promise<Commission> {
  return unitOfWork(ctx, async (tx) => {
    await assertExists(tx, Partner, input.partnerId, 'partnerId', 'Partner');
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
  if (f.status) qb.andWhere('c.status = :status', { status: f.status });
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

/**
 * For the opportunities work to call inside the transaction that marks a deal won. When the deal's
 * lead came through an approved partner, records that partner's commission at its tier's rate and
 * emits commission.earned with the caller's unit of work. Returns null when nothing is owed. Calling it twice for one opportunity records once.
 */
export async function earnCommissionForWonDeal(
  tx: UnitOfWork,
  deal: WonDeal,
): Promise<{ commission: Commission; event: OutboxEvent | null } | null> {
  const lead = await tx.repo(Lead).findById(deal.leadId);
  const partner = lead?.partnerId ? await tx.repo(Partner).findById(lead.partnerId) : null;
  if (!lead || !partner || partner.status !== 'approved') return null;
  const commissions = tx.repo(Commission);
  const existing = await commissions.findOne({ opportunityId: deal.opportunityId });
  if (existing) return { commission: existing, event: null };
  const rate = TIER_RATES[partner.tier];
  const amount = toCents(deal.value * rate);
  if (amount <= 0) return null;
  const commission = await commissions.insert({
    partnerId: partner.id,
    amount,
    currency: deal.currency ?? 'USD',
    status: 'earned',
    rate,
    leadId: lead.id,
    opportunityId: deal.opportunityId,
    note: null,
    paidAt: null,
  });
  const event = await tx.emit('commission.earned', commission);
  return { commission, event };
}
