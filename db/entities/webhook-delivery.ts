import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event for one endpoint. Unique by (event, endpoint): activities upsert it, so re-runs are harmless. */
@Entity({ name: 'webhook_deliveries' })
@Index('uq_webhook_deliveries_event_endpoint', ['eventId', 'endpointId'], { unique: true })
@Index('ix_webhook_deliveries_endpoint_created', ['endpointId', 'createdAt'])
export class WebhookDelivery extends TenantOwned {
  @Column({ name: 'event_id', type: 'bigint' })
  eventId: string;

  @Column({ name: 'endpoint_id', type: 'bigint' })
  endpointId: string;

  /** Copied from the event so the log can filter by type without a join. */
  @Column({ name: 'event_type', type: 'varchar', length: 60 })
  eventType: string;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
