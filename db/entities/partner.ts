import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const PARTNER_TIERS = ['bronze', 'silver', 'gold', 'platinum'] as const;
export type PartnerTier = (typeof PARTNER_TIERS)[number];
export const PARTNER_STATUSES = ['pending', 'approved', 'rejected', 'suspended'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

@Entity({ name: 'partners' })
@Index('ix_partners_scope_parent', ['tenantId', 'environment', 'parentId'])
@Index('ix_partners_scope_created', ['tenantId', 'environment', 'createdAt'])
export class Partner extends TenantOwned {
  @Column({ type: 'varchar', length: 320 })
  email: string;

  @Column({ name: 'first_name', type: 'varchar', length: 100 })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 100 })
  lastName: string;

  @Column({ type: 'varchar', length: 40, nullable: true })
  phone: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  company: string | null;

  @Column({ type: 'varchar', length: 10, default: 'bronze' })
  tier: PartnerTier;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  status: PartnerStatus;

  /** The upline: the partner whose referral code this partner registered with. */
  @Column({ name: 'parent_id', type: 'bigint', nullable: true })
  parentId: string | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt: Date | null;
}

/** A partner's shareable code; unique per tenant and environment so it resolves to one partner. */
@Entity({ name: 'partner_referral_codes' })
@Index('uq_partner_referral_codes_code', ['tenantId', 'environment', 'code'], { unique: true })
@Index('ix_partner_referral_codes_partner', ['partnerId'])
export class PartnerReferralCode extends TenantOwned {
  @Column({ name: 'partner_id', type: 'bigint' })
  partnerId: string;

  @Column({ type: 'varchar', length: 40 })
  code: string;
}
