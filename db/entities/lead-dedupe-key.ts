import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

/**
 * Every normalised email (`e:<email>`) and phone (`p:<digits>`) any lead of a tenant and
 * environment has had, with the lead that claimed it first. A new lead claims its keys in the
 * statement that writes it (INSERT ... ON CONFLICT DO NOTHING, which waits for a concurrent
 * claimer): when it claims them all, no other lead can share them and the lead is checked for
 * duplicates on the spot; otherwise its lead-dedupe workflow runs. Rows are never deleted, so a
 * key seen once keeps sending later leads to the full check.
 */
@Entity({ name: 'lead_dedupe_keys' })
export class LeadDedupeKey {
  @PrimaryColumn({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  environment: Environment;

  @PrimaryColumn({ type: 'varchar', length: 330 })
  key: string;

  @Column({ name: 'lead_id', type: 'bigint' })
  leadId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
