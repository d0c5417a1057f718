import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

export type ApiKeyStatus = 'active' | 'revoked';

@Entity({ name: 'api_keys' })
@Index('ix_api_keys_tenant', ['tenantId', 'environment'])
export class ApiKey {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @Column({ type: 'varchar', length: 8 })
  environment: Environment;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ name: 'key_prefix', type: 'varchar', length: 16 })
  keyPrefix: string;

  /** SHA-256 of the full key, hex. The key itself is never stored. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash: string;

  @Column({ type: 'text', array: true, default: () => "'{*}'" })
  scopes: string[];

  @Column({ type: 'varchar', length: 10, default: 'active' })
  status: ApiKeyStatus;

  /** The user the key acts as unless X-On-Behalf-Of names another. */
  @Column({ name: 'owner_user_id', type: 'bigint' })
  ownerUserId: string;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
