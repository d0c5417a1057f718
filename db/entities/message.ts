import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export const MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;
/** How an email body is sent: as written (html), or escaped into HTML with its author's links made clickable (text). */
export const EMAIL_FORMATS = ['text', 'html'] as const;
export type EmailFormat = (typeof EMAIL_FORMATS)[number];
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * One outgoing email or SMS. `idempotency_key` (enrollment + node for campaign sends) makes a
 * retried or replayed send find the same row instead of sending again.
 */
@Entity({ name: 'messages' })
@Index('uq_messages_idempotency', ['tenantId', 'idempotencyKey'], { unique: true })
@Index('ix_messages_scope_campaign', ['tenantId', 'environment', 'campaignId'])
@Index('ix_messages_scope_lead', ['tenantId', 'environment', 'leadId'])
// Twilio's status callbacks name a message by its SID alone, whatever its tenant: SMS rows only, so
// the far more numerous emails (long Message-IDs nobody looks up) cost this index nothing.
@Index('ix_messages_sms_provider_id', ['providerMessageId'], { where: "channel = 'sms' AND provider_message_id IS NOT NULL" })
// The SMS status sweep's window: sent SMS still waiting for a final status, by send time (few: most get one within minutes).
@Index('ix_messages_sms_unreconciled', ['sentAt', 'id'], {
  where:
    "channel = 'sms' AND status = 'sent' AND delivered_at IS NULL AND NOT sandbox AND provider_message_id IS NOT NULL AND status_check_error IS NULL",
})
export class Message extends TenantOwned {
  @Column({ type: 'varchar', length: 8 })
  channel: MessageChannel;

  @Column({ name: 'to_address', type: 'varchar', length: 320 })
  to: string;

  @Column({ type: 'varchar', length: 300, nullable: true })
  subject: string | null;

  /** The rendered body as written (before tracking links are added at delivery). */
  @Column({ type: 'text' })
  body: string;

  /** Taken from the template or node that was rendered, never re-guessed from the rendered body. */
  @Column({ type: 'varchar', length: 4, default: 'text' })
  format: EmailFormat;

  /**
   * The URLs the author wrote, without placeholders: the only ones made clickable (text) and
   * click-tracked. A URL that arrived in a lead's data stays text and never gets a signed redirect.
   */
  @Column({ name: 'tracked_links', type: 'jsonb', default: () => "'[]'" })
  trackedLinks: string[];

  @Column({ type: 'varchar', length: 8, default: 'queued' })
  status: MessageStatus;

  /** Recorded by the capture transport, never handed to a provider. */
  @Column({ type: 'boolean', default: false })
  sandbox: boolean;

  /** Campaign emails carry an unsubscribe link and List-Unsubscribe. */
  @Column({ type: 'boolean', default: false })
  marketing: boolean;

  @Column({ name: 'lead_id', type: 'bigint', nullable: true })
  leadId: string | null;

  @Column({ name: 'campaign_id', type: 'bigint', nullable: true })
  campaignId: string | null;

  /** The sender identity chosen (email_senders); null: EMAIL_FROM. */
  @Column({ name: 'sender_id', type: 'bigint', nullable: true })
  senderId: string | null;

  @Column({ name: 'opportunity_id', type: 'bigint', nullable: true })
  opportunityId: string | null;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 200 })
  idempotencyKey: string;

  @Column({ name: 'provider_message_id', type: 'varchar', length: 300, nullable: true })
  providerMessageId: string | null;

  /** Written just before the provider is called: a retry that finds it set never calls again. */
  @Column({ name: 'provider_attempted_at', type: 'timestamptz', nullable: true })
  providerAttemptedAt: Date | null;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;

  /** When the provider reported the SMS delivered (Twilio's status callback); set once, only on a sent message. */
  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  error: string | null;

  /** When the SMS status sweep last asked Twilio for this SMS's status (its callback was overdue). */
  @Column({ name: 'status_checked_at', type: 'timestamptz', nullable: true })
  statusCheckedAt: Date | null;

  /** Why the sweep stopped asking (Twilio has no such message); set, the SMS is never checked again. */
  @Column({ name: 'status_check_error', type: 'varchar', length: 1000, nullable: true })
  statusCheckError: string | null;
}
