import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const CAMPAIGN_TYPES = ['email', 'sms', 'mixed'] as const;
export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * A campaign runs one sequence definition. Activation pins the definition's version
 * (`workflow_version`), so later edits of the definition never change what enrolled leads go through.
 */
@Entity({ name: 'campaigns' })
@Index('ix_campaigns_scope_trigger', ['tenantId', 'environment', 'status', 'triggerType'])
export class Campaign extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 10, default: 'email' })
  type: string;

  @Column({ type: 'varchar', length: 10, default: 'draft' })
  status: CampaignStatus;

  @Column({ name: 'workflow_definition_id', type: 'bigint', nullable: true })
  workflowDefinitionId: string | null;

  /** Set on activation: the definition version every enrollment of this campaign runs. */
  @Column({ name: 'workflow_version', type: 'integer', nullable: true })
  workflowVersion: number | null;

  /** The pinned definition's trigger type, so lead hooks find campaigns to auto-enroll into with one query. */
  @Column({ name: 'trigger_type', type: 'varchar', length: 40, nullable: true })
  triggerType: string | null;

  @Column({ name: 'activated_at', type: 'timestamptz', nullable: true })
  activatedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
