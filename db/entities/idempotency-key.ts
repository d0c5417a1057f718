import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

/**
 * A POST's Idempotency-Key and, once it finished, the response to replay (kept 24 h, then purged
 * by the idempotency-purge schedule). Scoped per caller: one key's record is never another's.
 */
@Entity({ name: 'idempotency_keys' })
@Index('IDX_idempotency_keys_created_at', ['createdAt'])
export class IdempotencyKey {
  @PrimaryColumn({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  environment: Environment;

  /** Who sent it: `key:<api key id>`, or `user:<user id>` for a platform UI (JWT) caller. */
  @PrimaryColumn({ type: 'varchar', length: 40 })
  principal: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key: string;

  /** SHA-256 of method, path and body: the same key with another request is refused. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash: string;

  /** Null while the first request is still running. */
  @Column({ name: 'status_code', type: 'smallint', nullable: true })
  statusCode: number | null;

  /** Secrets (a new API key, a webhook signing secret) are never stored: replaced, and flagged here. */
  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: unknown;

  /** The response carried a secret: a replay answers 409 instead of the (redacted) response. */
  @Column({ name: 'secret_redacted', type: 'boolean', default: false })
  secretRedacted: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
