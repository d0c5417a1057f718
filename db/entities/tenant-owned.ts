import { Column, CreateDateColumn, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const ENVIRONMENTS = ['live', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * The columns of every row that belongs to one tenant and one environment (live or sandbox).
 * Such rows are only reachable through ScopedRepository, which always filters by both. Extend it
 * directly when the entity's own indexes all start with (tenant_id, environment), or when nothing
 * reads its rows by scope: a plain index on the pair would then be a write on every insert that no
 * query uses.
 */
export abstract class TenantScopedColumns {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @Column({ type: 'varchar', length: 8 })
  environment: Environment;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A tenant's row with an index on (tenant_id, environment), for scans of the scope. */
@Index(['tenantId', 'environment'])
export abstract class TenantOwned extends TenantScopedColumns {}
