import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export type DuplicateReason = 'email' | 'phone';

/** One detected pair, stored from the point of view of the lead that was checked. */
@Entity({ name: 'lead_duplicates' })
@Index('uq_lead_duplicates_pair', ['leadId', 'duplicateLeadId'], { unique: true })
export class LeadDuplicate extends TenantOwned {
  @Column({ name: 'lead_id', type: 'bigint' })
  leadId: string;

  @Column({ name: 'duplicate_lead_id', type: 'bigint' })
  duplicateLeadId: string;

  @Column({ type: 'text', array: true })
  reasons: DuplicateReason[];
}
