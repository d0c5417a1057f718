import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

/** A POST's Idempotency-Key and, once it finished, the response to replay (kept 24 h). */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKey {
  @PrimaryColumn({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  environment: Environment;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key: string;

  /** SHA-256 of method, path and body: the same key with another request is refused. */
  @Column({ name: 'request_hash', type: 'char', length: 64 })
  requestHash: string;

  /** Null while the first request is still running. */
  @Column({ name: 'status_code', type: 'smallint', nullable: true })
  statusCode: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: unknown;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
