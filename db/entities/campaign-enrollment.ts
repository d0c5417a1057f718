import { Column, Entity, Index } from 'typeorm';
import { TenantScopedColumns } from './tenant-owned';
import type { EngagementType } from './engagement-event';

/**
 * active: the workflow runs. completed: it reached an end. exited: the lead left (converted,
 * unsubscribed, bounced, deleted). unenrolled: removed by a caller. stopped: the campaign completed.
 */
export const ENROLLMENT_STATUSES = ['active', 'completed', 'exited', 'unenrolled', 'stopped'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/** One per campaign and lead, like its workflow (`campaign/<campaignId>/lead/<leadId>`). */
@Entity({ name: 'campaign_enrollments' })
@Index('uq_campaign_enrollments_lead', ['campaignId', 'leadId'], { unique: true })
@Index('ix_campaign_enrollments_lead', ['tenantId', 'environment', 'leadId'])
@Index('ix_campaign_enrollments_workflow', ['tenantId', 'environment', 'workflowId'])
// No index of the scope alone: both of the above lead with it (migration 1796080000000).
export class CampaignEnrollment extends TenantScopedColumns {
  @Column({ name: 'campaign_id', type: 'bigint' })
  campaignId: string;

  @Column({ name: 'lead_id', type: 'bigint' })
  leadId: string;

  @Column({ name: 'workflow_id', type: 'varchar', length: 200 })
  workflowId: string;

  @Column({ name: 'workflow_version', type: 'integer' })
  workflowVersion: number;

  @Column({ type: 'varchar', length: 12, default: 'active' })
  status: EnrollmentStatus;

  @Column({ name: 'exit_reason', type: 'varchar', length: 40, nullable: true })
  exitReason: string | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  /**
   * Until when engagement events are signalled to the workflow: set when it starts waiting on an
   * engagement condition (to the window's end), so an open or click of a lead whose enrollment is
   * in a wait or a send costs Temporal nothing; the condition reads earlier events itself.
   * Null: not waiting. Enrollments older than the column are signalled always (infinity).
   */
  @Column({ name: 'engagement_signals_until', type: 'timestamptz', nullable: true })
  engagementSignalsUntil: Date | null;

  /**
   * The engagement the open condition waits for: only events of this type are signalled, since no
   * other can decide it. Null (a window opened before the column): every type.
   */
  @Column({ name: 'engagement_signal_type', type: 'varchar', length: 30, nullable: true })
  engagementSignalType: EngagementType | null;

  /** Action nodes already applied (their node IDs), so a retried score change is not applied twice. */
  @Column({ name: 'applied_actions', type: 'jsonb', default: () => "'[]'" })
  appliedActions: string[];
}
