import { Column, Entity } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

/** A receiver URL of one tenant and environment: sandbox endpoints only ever get sandbox events. */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpoint extends TenantOwned {
  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** Event names, or ['*'] for every event. */
  @Column({ type: 'text', array: true })
  events: string[];

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 10, default: 'active' })
  status: WebhookStatus;

  /** `whsec_` + base64 of 32 random bytes. Kept in clear: every delivery is signed with it. */
  @Column({ type: 'varchar', length: 100 })
  secret: string;

  /** After a rotation the old secret keeps signing (a second signature) until this time. */
  @Column({ name: 'previous_secret', type: 'varchar', length: 100, nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt: Date | null;

  /** Why the service (not the user) disabled the endpoint: a 410, or failing deliveries. */
  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason: string | null;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt: Date | null;
}
