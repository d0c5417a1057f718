import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/**
 * A lead status or an opportunity stage of one tenant and environment. The partial unique index
 * backs the "exactly one default per entity type" rule that the domain code keeps under a lock.
 */
@Entity({ name: 'status_definitions' })
@Index('uq_status_definitions_code', ['tenantId', 'environment', 'entityType', 'code'], { unique: true })
@Index('uq_status_definitions_default', ['tenantId', 'environment', 'entityType'], { unique: true, where: '"is_default"' })
export class StatusDefinition extends TenantOwned {
  @Column({ name: 'entity_type', type: 'varchar', length: 20 })
  entityType: 'lead' | 'opportunity';

  @Column({ type: 'varchar', length: 40 })
  code: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 20, default: 'gray' })
  color: string;

  @Column({ name: 'sort_order', type: 'integer', default: 0 })
  sortOrder: number;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;

  @Column({ name: 'is_closed', type: 'boolean', default: false })
  isClosed: boolean;

  @Column({ name: 'is_won', type: 'boolean', default: false })
  isWon: boolean;

  @Column({ name: 'default_probability', type: 'integer', nullable: true })
  defaultProbability: number | null;
}
