import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Environment } from './tenant-owned';

/** What a feed keeps of a deleted record: its scope, its delete's transaction ID and when it went. */
abstract class DeletedRecord {
  @Column({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @Column({ type: 'varchar', length: 8 })
  environment: Environment;

  @Column({ name: 'change_xid', type: 'bigint' })
  changeXid: string;

  @Column({ name: 'deleted_at', type: 'timestamptz' })
  deletedAt: Date;
}

/**
 * A deleted lead, as the change feed (GET /v1/leads/changes) reports it: written by the database's
 * trigger on every delete of a lead, whoever deletes it (DELETE /v1/leads/{id}, a merge), in the
 * delete's transaction (migration AddLeadChangeFeed1796130000000). `change_xid` is that
 * transaction's ID, as a lead's is.
 */
@Entity({ name: 'lead_deletions' })
@Index('ix_lead_deletions_scope_change', ['tenantId', 'environment', 'changeXid', 'leadId'])
@Index('ix_lead_deletions_deleted_at', ['deletedAt'])
export class LeadDeletion extends DeletedRecord {
  @PrimaryColumn({ name: 'lead_id', type: 'bigint' })
  leadId: string;
}

/** A deleted opportunity, as GET /v1/opportunities/changes reports it (migration AddOpportunityChangeFeed1796150000000). */
@Entity({ name: 'opportunity_deletions' })
@Index('ix_opportunity_deletions_scope_change', ['tenantId', 'environment', 'changeXid', 'opportunityId'])
@Index('ix_opportunity_deletions_deleted_at', ['deletedAt'])
export class OpportunityDeletion extends DeletedRecord {
  @PrimaryColumn({ name: 'opportunity_id', type: 'bigint' })
  opportunityId: string;
}

/**
 * How far a feed's deletions were pruned in a scope (CHANGE_FEED_RETENTION_DAYS): the feed's
 * place (its transaction ID, then its record ID) of the last one pruned. A change cursor before it
 * may have missed a pruned deletion, and the feed refuses it (migration AddLeadDeletionRetention1796140000000).
 */
@Entity({ name: 'change_feed_horizons' })
export class ChangeFeedHorizon {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  feed: string;

  @PrimaryColumn({ name: 'tenant_id', type: 'bigint' })
  tenantId: string;

  @PrimaryColumn({ type: 'varchar', length: 8 })
  environment: Environment;

  @Column({ name: 'pruned_through_xid', type: 'bigint' })
  prunedThroughXid: string;

  @Column({ name: 'pruned_through_id', type: 'bigint' })
  prunedThroughId: string;
}
