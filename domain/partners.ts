import { In } from 'typeorm';
import { Partner, PartnerReferralCode } from '../db/entities';
import type { PartnerStatus } from '../db/entities/partner';
import { AppError } from '../lib/errors';
import type { PartnerCreate, PartnerListQuery, PartnerUpdate } from '../contracts/partner';
import type { DomainContext } from './context';
import { issueReferralCode, resolveReferralCode } from './referral-codes';
import { findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { indexPartner } from './search-index';
import { nextState, type Transitions } from './transitions';
import { unitOfWork, type UnitOfWork } from './unit-of-work';
import { normalizeEmail } from './normalize';

/** pending -> approved | rejected; approved <-> suspended. Only approve emits partner.approved. */
export const PARTNER_ACTIONS = {
  approve: { from: ['pending'], to: 'approved' },
  reject: { from: ['pending'], to: 'rejected' },
  suspend: { from: ['approved'], to: 'suspended' },
  reactivate: { from: ['suspended'], to: 'approved' },
} as const satisfies Transitions<PartnerStatus, string>;
export type PartnerAction = keyof typeof PARTNER_ACTIONS;

/** Downline walks stop here; referral trees deeper than this are not a real-world case. */
const MAX_DOWNLINE_DEPTH = 20;

/**
 * One partner per email address in a tenant's environment, compared as suppressions compare
 * addresses (case-insensitively): partners log in to their portal by email, and a second record
 * under one address would split its referrals and commissions between two accounts. Checked under
 * a lock on the address, so two registrations of one address cannot both pass.
 */
async function assertPartnerEmailFree(tx: UnitOfWork, email: string, exceptId?: string): Promise<void> {
  const address = normalizeEmail(email);
  await tx.lockScope(`partners:email:${address}`);
  const qb = tx.repo(Partner).select('p').andWhere('lower(p.email) = :address', { address });
  if (exceptId) qb.andWhere('p.id <> :exceptId', { exceptId });
  if (await qb.getOne()) {
    throw new AppError('conflict', 'A partner with this email already exists', [{ field: 'email', message: 'Already in use' }]);
  }
}

export function createPartner(ctx: DomainContext, input: PartnerCreate): Promise<Partner> {
  return unitOfWork(ctx, async (tx) => {
    await assertPartnerEmailFree(tx, input.email);
    const upline = input.referralCode ? await resolveReferralCode(tx, input.referralCode, 'referralCode') : null;
    const partner = await tx.repo(Partner).insert({
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      phone: input.phone ?? null,
      company: input.company ?? null,
      tier: input.tier ?? 'bronze',
      status: 'pending',
      parentId: upline?.id ?? null,
      approvedAt: null,
    });
    await indexPartner(tx, partner);
    await tx.emit('partner.registered', { id: partner.id, company: partner.company });
    return partner;
  });
}

export const getPartner = (ctx: DomainContext, id: string) => findOrFail(ctx.data, Partner, id, 'Partner');

const SORT_COLUMNS: Record<PartnerListQuery['sort']['field'], string> = {
  createdAt: 'p.created_at',
  updatedAt: 'p.updated_at',
  lastName: 'p.last_name',
  company: 'p.company',
};

export function listPartners(ctx: DomainContext, f: PartnerListQuery) {
  const qb = ctx.data.repo(Partner).select('p');
  if (f.status) qb.andWhere('p.status IN (:...status)', { status: f.status });
  if (f.tier) qb.andWhere('p.tier = :tier', { tier: f.tier });
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;
    qb.andWhere("lower(p.email || ' ' || p.first_name || ' ' || p.last_name || ' ' || coalesce(p.company, '')) LIKE :like", { like });
  }
  qb.orderBy(SORT_COLUMNS[f.sort.field], f.sort.direction, 'NULLS LAST').addOrderBy('p.id', f.sort.direction);
  return pageOf(qb, f.page, f.limit);
}

export function updatePartner(ctx: DomainContext, id: string, patch: PartnerUpdate): Promise<Partner> {
  return unitOfWork(ctx, async (tx) => {
    const partner = await findForUpdate(tx, Partner, id, 'Partner');
    if (patch.email && normalizeEmail(patch.email) !== normalizeEmail(partner.email)) await assertPartnerEmailFree(tx, patch.email, id);
    Object.assign(partner, patch);
    const saved = await tx.repo(Partner).save(partner);
    await indexPartner(tx, saved);
    return saved;
  });
}

/** The first approval also issues the partner's first referral code. */
export function transitionPartner(ctx: DomainContext, id: string, action: PartnerAction): Promise<Partner> {
  return unitOfWork(ctx, async (tx) => {
    const partner = await findForUpdate(tx, Partner, id, 'Partner');
    partner.status = nextState('partner', PARTNER_ACTIONS, partner.status, action);
    if (action === 'approve') {
      partner.approvedAt = new Date();
      if (!(await tx.repo(PartnerReferralCode).count({ partnerId: id }))) await issueReferralCode(tx, id);
    }
    const saved = await tx.repo(Partner).save(partner);
    await indexPartner(tx, saved);
    if (action === 'approve') await tx.emit('partner.approved', { id: partner.id });
    return saved;
  });
}

/** What lets a partner hold codes again, where anything does. */
const REFERRAL_HINT: Partial<Record<Partner['status'], string>> = {
  pending: ': approve the partner first (POST /v1/partners/{id}/approve)',
  suspended: ': reactivate the partner first (POST /v1/partners/{id}/reactivate)',
};

export function createReferralCode(ctx: DomainContext, partnerId: string): Promise<PartnerReferralCode> {
  return unitOfWork(ctx, async (tx) => {
    const partner = await findForUpdate(tx, Partner, partnerId, 'Partner');
    if (partner.status !== 'approved')
      throw new AppError(
        'conflict',
        `Cannot issue a referral code to a partner that is ${partner.status}${REFERRAL_HINT[partner.status] ?? ''}`,
      );
    return issueReferralCode(tx, partnerId);
  });
}

export async function listReferralCodes(ctx: DomainContext, partnerId: string): Promise<PartnerReferralCode[]> {
  await getPartner(ctx, partnerId);
  return ctx.data.repo(PartnerReferralCode).find({ where: { partnerId }, order: { id: 'ASC' } });
}

/** Every descendant, level by level (depth 1 = referred directly), through the scoped repository. */
export async function listDownline(ctx: DomainContext, partnerId: string): Promise<{ partner: Partner; depth: number }[]> {
  await getPartner(ctx, partnerId);
  const partners = ctx.data.repo(Partner);
  const out: { partner: Partner; depth: number }[] = [];
  let level = [partnerId];
  for (let depth = 1; level.length && depth <= MAX_DOWNLINE_DEPTH; depth++) {
    const children = await partners.find({ where: { parentId: In(level) }, order: { id: 'ASC' } });
    out.push(...children.map((partner) => ({ partner, depth })));
    level = children.map((c) => c.id);
  }
  return out;
}
