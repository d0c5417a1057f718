import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const COMMISSION_STATUSES = ['earned', 'paid', 'reversed'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

/** numeric comes back from pg as a string; money is exact in the database and a number in the API. */
const money = { to: (v: number) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

@Entity({ name: 'commissions' })
@Index('ix_commissions_scope_partner', ['tenantId', 'environment', 'partnerId'])
@Index('uq_commissions_opportunity', ['tenantId', 'environment', 'opportunityId'], { unique: true, where: 'opportunity_id IS NOT NULL' })
export class Commission extends TenantOwned {
  @Column({ name: 'partner_id', type: 'bigint' })
  partnerId: string;

  @Column({ type: 'numeric', precision: 14, scale: 2, transformer: money })
  amount: number;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 8, default: 'earned' })
  status: CommissionStatus;

  /** The tier rate applied (a fraction) for deal commissions; null for manual records. */
  @Column({ type: 'numeric', precision: 6, scale: 4, nullable: true, transformer: money })
  rate: number | null;

  @Column({ name: 'lead_id', type: 'bigint', nullable: true })
  leadId: string | null;

  @Column({ name: 'opportunity_id', type: 'bigint', nullable: true })
  opportunityId: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  note: string | null;

  @Column({ name: 'paid_at', type: 'timestamptz', nullable: true })
  paidAt: Date | null;
}
