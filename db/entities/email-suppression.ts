import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/** Stricter last: a bounce outranks an unsubscribe (the address cannot receive mail at all). */
export const SUPPRESSION_REASONS = ['unsubscribed', 'bounced'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/**
 * An address of a tenant and environment that gets no more marketing email, whichever lead record
 * carries it (now or later): set by an unsubscribe or a bounce, kept through merges. One row per
 * normalised address; `created_at` is when it was first suppressed, `updated_at` the latest change.
 */
@Entity({ name: 'email_suppressions' })
@Index('uq_email_suppressions_address', ['tenantId', 'environment', 'address'], { unique: true })
export class EmailSuppression extends TenantOwned {
  /** Normalised as domain/normalize.ts does (the same form as leads.email_normalized). */
  @Column({ type: 'varchar', length: 320 })
  address: string;

  @Column({ type: 'varchar', length: 12 })
  reason: SuppressionReason;
}
