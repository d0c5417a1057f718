import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/**
 * The public engagement event types (email_open ... page_visit, the set integrations were promised),
 * plus `unsubscribe`, which only the unsubscribe link records, and
 * `email_delivered`, which only the provider's delivery notification records.
 */
export const ENGAGEMENT_TYPES = [
  'email_open',
  'link_click',
  'email_reply',
  'email_bounce',
  'email_sent',
  'form_submission',
  'page_visit',
] as const;
export type EngagementType = (typeof ENGAGEMENT_TYPES)[number] | 'unsubscribe' | 'email_delivered';

@Entity({ name: 'engagement_events' })
@Index('ix_engagement_events_message', ['tenantId', 'messageId', 'type'])
@Index('ix_engagement_events_campaign', ['tenantId', 'environment', 'campaignId', 'type'])
@Index('ix_engagement_events_lead', ['tenantId', 'environment', 'leadId', 'type'])
export class EngagementEvent extends TenantOwned {
  @Column({ type: 'varchar', length: 20 })
  type: EngagementType;

  @Column({ name: 'lead_id', type: 'bigint', nullable: true })
  leadId: string | null;

  @Column({ name: 'message_id', type: 'bigint', nullable: true })
  messageId: string | null;

  @Column({ name: 'campaign_id', type: 'bigint', nullable: true })
  campaignId: string | null;

  @Column({ name: 'workflow_execution_id', type: 'varchar', length: 200, nullable: true })
  workflowExecutionId: string | null;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt: Date;

  /** Prefetches by mail privacy proxies and scanners: kept for the record, never signalled. */
  @Column({ type: 'boolean', default: false })
  machine: boolean;

  /** Click URL, user agent, bounce reason: whatever explains the event. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  details: Record<string, unknown>;
}
