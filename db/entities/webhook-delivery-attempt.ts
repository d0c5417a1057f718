import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/** Every HTTP attempt of a delivery, successful or not, as the delivery log shows it. */
@Entity({ name: 'webhook_delivery_attempts' })
@Index('uq_webhook_delivery_attempts_number', ['deliveryId', 'attemptNumber'], { unique: true })
export class WebhookDeliveryAttempt extends TenantOwned {
  @Column({ name: 'delivery_id', type: 'bigint' })
  deliveryId: string;

  @Column({ name: 'attempt_number', type: 'integer' })
  attemptNumber: number;

  /** Null when no HTTP response arrived (timeout, refused target, connection error). */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'latency_ms', type: 'integer' })
  latencyMs: number;

  /** At most 1 KB of the response body. */
  @Column({ name: 'response_snippet', type: 'text', nullable: true })
  responseSnippet: string | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;
}
