import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

/** One row per mutating request: who (key owner and actor), what, on which resource, from where. */
@Entity({ name: 'audit_logs' })
@Index('ix_audit_logs_scope_created', ['tenantId', 'environment', 'createdAt'])
export class AuditLog {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @Column({ type: 'varchar', length: 8 })
  environment: Environment;

  @Column({ name: 'api_key_id', type: 'bigint', nullable: true })
  apiKeyId: string | null;

  @Column({ name: 'owner_user_id', type: 'bigint' })
  ownerUserId: string;

  @Column({ name: 'actor_user_id', type: 'bigint' })
  actorUserId: string;

  /** e.g. `POST /v1/leads` (method and route template). */
  @Column({ type: 'varchar', length: 200 })
  action: string;

  @Column({ name: 'resource_type', type: 'varchar', length: 60 })
  resourceType: string;

  /** Encoded (public) ID of the resource acted on, when there is one. */
  @Column({ name: 'resource_id', type: 'varchar', length: 40, nullable: true })
  resourceId: string | null;

  @Column({ name: 'status_code', type: 'smallint' })
  statusCode: number;

  @Column({ name: 'request_id', type: 'varchar', length: 128 })
  requestId: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
