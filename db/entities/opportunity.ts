import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/** numeric comes back from pg as a string; money stays exact in the database and a number in JS. */
const money = { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

/**
 * A deal. `stage` is the code of an opportunity stage definition (status_definitions); a lead is
 * converted at most once (partial unique index), which is what makes a second conversion a 409.
 */
@Entity({ name: 'opportunities' })
@Index('ix_opportunities_scope_created', ['tenantId', 'environment', 'createdAt'])
// A stage's deals: whether the stage is in use (its delete, or a change of its code or flags).
@Index('ix_opportunities_scope_stage', ['tenantId', 'environment', 'stageId'])
@Index('uq_opportunities_converted_lead', ['leadId'], { unique: true, where: '"converted_from_lead"' })
// The change feed, in the order of its cursor (partial for the reason the leads' is).
@Index('ix_opportunities_scope_change', ['tenantId', 'environment', 'changeXid', 'id'], { where: 'change_xid IS NOT NULL' })
export class Opportunity extends TenantOwned {
  @Column({ name: 'lead_id', type: 'bigint', nullable: true })
  leadId: string | null;

  @Column({ name: 'converted_from_lead', type: 'boolean', default: false })
  convertedFromLead: boolean;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'numeric', precision: 14, scale: 2, default: 0, transformer: money })
  value: number;

  @Column({ type: 'char', length: 3, default: 'USD' })
  currency: string;

  @Column({ name: 'stage_id', type: 'bigint' })
  stageId: string;

  @Column({ type: 'varchar', length: 40 })
  stage: string;

  /** open, won or lost: follows the stage's isClosed/isWon flags at the time of the move. */
  @Column({ type: 'varchar', length: 10, default: 'open' })
  status: 'open' | 'won' | 'lost';

  @Column({ type: 'integer', default: 0 })
  probability: number;

  /** True when probability was set explicitly; otherwise it follows the stage's default. */
  @Column({ name: 'probability_overridden', type: 'boolean', default: false })
  probabilityOverridden: boolean;

  @Column({ name: 'owner_user_id', type: 'bigint', nullable: true })
  ownerUserId: string | null;

  @Column({ name: 'expected_close_date', type: 'date', nullable: true })
  expectedCloseDate: string | null;

  @Column({ name: 'closed_at', type: 'timestamptz', nullable: true })
  closedAt: Date | null;

  @Column({ name: 'lost_reason', type: 'varchar', length: 500, nullable: true })
  lostReason: string | null;

  /**
   * Where the deal stands in the change feed (GET /v1/opportunities/changes): the ID of the
   * transaction that last created or changed it, written by the database's trigger (migration
   * AddOpportunityChangeFeed1796150000000), never by the application.
   */
  @Column({ name: 'change_xid', type: 'bigint', nullable: true, select: false, insert: false, update: false })
  changeXid?: string | null;
}
