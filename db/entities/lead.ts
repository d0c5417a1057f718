import { Column, Entity, Index } from 'typeorm';
import { TenantScopedColumns } from './tenant-owned';

export const LEAD_SOURCES = ['web', 'referral', 'api', 'import', 'manual'] as const;

@Entity({ name: 'leads' })
// Every index starts with the scope, so the pair needs none of its own (TenantScopedColumns).
@Index('ix_leads_scope_email', ['tenantId', 'environment', 'emailNormalized'])
@Index('ix_leads_scope_created', ['tenantId', 'environment', 'createdAt'])
// A status's leads: whether a definition is in use (its delete), and GET /v1/leads?status= by createdAt.
@Index('ix_leads_scope_status', ['tenantId', 'environment', 'status', 'createdAt'])
// What changed since a sync's last poll: GET /v1/leads?updatedFrom=, and sort=updatedAt. Partial so
// that only a query naming updated_at reads it (migration AddLeadsUpdatedIndex1796120000000 says why).
@Index('ix_leads_scope_updated', ['tenantId', 'environment', 'updatedAt'], { where: 'updated_at IS NOT NULL' })
// The change feed, in the order of its cursor (partial for the reason the updatedAt index is).
@Index('ix_leads_scope_change', ['tenantId', 'environment', 'changeXid', 'id'], { where: 'change_xid IS NOT NULL' })
// The lead-dedupe sweep looks for leads whose check never ran.
@Index('ix_leads_unchecked', ['createdAt'], { where: 'duplicates_checked_at IS NULL' })
export class Lead extends TenantScopedColumns {
  @Column({ type: 'varchar', length: 320 })
  email: string;

  /** Lower-cased, trimmed; duplicate detection compares this. */
  @Column({ name: 'email_normalized', type: 'varchar', length: 320 })
  emailNormalized: string;

  @Column({ name: 'first_name', type: 'varchar', length: 100 })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 100 })
  lastName: string;

  @Column({ type: 'varchar', length: 40, nullable: true })
  phone: string | null;

  /** Digits only with the country code; null when no phone. */
  @Column({ name: 'phone_normalized', type: 'varchar', length: 20, nullable: true })
  phoneNormalized: string | null;

  @Column({ type: 'varchar', length: 20, default: 'api' })
  source: string;

  @Column({ type: 'varchar', length: 40, default: 'new' })
  status: string;

  @Column({ type: 'integer', default: 0 })
  score: number;

  @Column({ name: 'assigned_to', type: 'bigint', nullable: true })
  assignedTo: string | null;

  @Column({ name: 'created_by', type: 'bigint', nullable: true })
  createdBy: string | null;

  @Column({ name: 'custom_fields', type: 'jsonb', default: () => "'{}'" })
  customFields: Record<string, unknown>;

  /** Set when the lead is converted into an opportunity (campaign sequences stop for it). */
  @Column({ name: 'converted_at', type: 'timestamptz', nullable: true })
  convertedAt: Date | null;

  /** The partner whose referral code brought this lead (commission attribution). */
  @Column({ name: 'partner_id', type: 'bigint', nullable: true })
  partnerId: string | null;

  /** Set by the duplicate-detection workflow when it has looked at this lead. */
  @Column({ name: 'duplicates_checked_at', type: 'timestamptz', nullable: true })
  duplicatesCheckedAt: Date | null;

  /** Campaign communication stops for good once set: unsubscribe link, bounce, conversion. */
  @Column({ name: 'unsubscribed_at', type: 'timestamptz', nullable: true })
  unsubscribedAt: Date | null;

  @Column({ name: 'bounced_at', type: 'timestamptz', nullable: true })
  bouncedAt: Date | null;

  /**
   * What `GET /v1/leads?q=` compares, folded, written by the database's trigger (migration
   * AddLeadSearchText1796100000000), never by the application, and never read into an entity.
   */
  @Column({ name: 'search_text', type: 'text', nullable: true, select: false, insert: false, update: false })
  searchText?: string | null;

  /**
   * Where the lead stands in the change feed (GET /v1/leads/changes, domain/change-feeds/read.ts): the
   * ID of the transaction that last created or changed it (its updated_at), written by the
   * database's trigger (migration AddLeadChangeFeed1796130000000), never by the application.
   */
  @Column({ name: 'change_xid', type: 'bigint', nullable: true, select: false, insert: false, update: false })
  changeXid?: string | null;
}
