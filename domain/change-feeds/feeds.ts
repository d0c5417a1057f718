import type { EntityTarget } from 'typeorm';
import { Lead, LeadDeletion, Opportunity, OpportunityDeletion } from '../../db/entities';
import type { TenantRow } from '../../db/scoped-repository';

/**
 * A resource's change feed (docs/decisions.md, "Change feed"): its records carry `change_xid` and
 * its deleted ones leave a row in a deletions table, both written by triggers; `name` is its key in
 * `change_feed_horizons`.
 */
export interface ChangeFeed<T extends TenantRow> {
  name: string;
  entity: EntityTarget<T>;
  deletions: EntityTarget<object>;
  /** The deletions table's column of the deleted record's ID. */
  deletedIdColumn: string;
}

export const LEAD_FEED: ChangeFeed<Lead> = { name: 'leads', entity: Lead, deletions: LeadDeletion, deletedIdColumn: 'lead_id' };

export const OPPORTUNITY_FEED: ChangeFeed<Opportunity> = {
  name: 'opportunities',
  entity: Opportunity,
  deletions: OpportunityDeletion,
  deletedIdColumn: 'opportunity_id',
};

/** Every feed, for the prune. */
export const CHANGE_FEEDS: ChangeFeed<TenantRow>[] = [LEAD_FEED, OPPORTUNITY_FEED];
