import { Column, Entity, Index } from 'typeorm';
import { TenantScopedColumns } from './tenant-owned';

/** What a lead did that enrolls it in the campaigns whose definition starts with it. */
export type LeadTrigger = 'lead_created' | 'lead_status_changed' | 'form_submitted';

/**
 * Automatic enrollments not made yet: a lead write that starts campaigns (a create into
 * `lead_created` ones, a status change, a form submission) records which leads and campaigns in
 * the write's own statement or transaction, so the request can answer before the enrollments are
 * made. Its `auto-enroll/<id>` workflow enrolls them and deletes the row; the auto-enroll sweep
 * starts that workflow for a row whose start was lost (the API died right after the commit).
 * Looked up by primary key within the scope, swept oldest first across tenants.
 */
@Entity({ name: 'pending_enrollments' })
@Index('ix_pending_enrollments_created', ['createdAt'])
export class PendingEnrollment extends TenantScopedColumns {
  @Column({ type: 'varchar', length: 30 })
  trigger: LeadTrigger;

  @Column({ name: 'lead_ids', type: 'bigint', array: true })
  leadIds: string[];

  /** The active campaigns with this trigger when the leads were written. */
  @Column({ name: 'campaign_ids', type: 'bigint', array: true })
  campaignIds: string[];

  /** The user whose write triggered the enrollments (the API key's user, or the form's owner). */
  @Column({ name: 'actor_user_id', type: 'bigint' })
  actorUserId: string;
}
