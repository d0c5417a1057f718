import { Column, Entity, Index } from 'typeorm';
import { TenantScopedColumns } from './tenant-owned';

/**
 * The transactional outbox: a row is written in the same transaction as the change it reports,
 * so an event exists exactly when its change committed. `dispatched_at` is set once the delivery
 * workflows are started; the sweep picks up rows a crash left undispatched. Events are read by ID,
 * as undispatched or oldest first (the retention purge), never by scope, so they have no index on
 * the pair (TenantScopedColumns).
 */
@Entity({ name: 'events' })
@Index('ix_events_undispatched', ['createdAt'], { where: 'dispatched_at IS NULL' })
@Index('ix_events_created', ['createdAt'])
export class OutboxEvent extends TenantScopedColumns {
  @Column({ type: 'varchar', length: 60 })
  type: string;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  /** Set for events meant for one endpoint only (test events); null means every subscriber. */
  @Column({ name: 'target_endpoint_id', type: 'bigint', nullable: true })
  targetEndpointId: string | null;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;
}
