import { Entity, Index, PrimaryColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

/**
 * Membership of a duplicate cluster: one row per normalised email (`e:<email>`) or phone
 * (`p:<digits>`) a lead has now, so a lead's duplicates are the other leads with a row for one of
 * its keys. Written with the lead, kept in step by updates, deleted with it (domain/lead-identities.ts).
 */
@Entity({ name: 'lead_identities' })
@Index('IDX_lead_identities_lead', ['leadId'])
export class LeadIdentity {
  @PrimaryColumn({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  environment: Environment;

  @PrimaryColumn({ type: 'varchar', length: 330 })
  key: string;

  @PrimaryColumn({ name: 'lead_id', type: 'bigint' })
  leadId: string;
}
