import type { z } from 'zod';
import { LEAD_FEED, OPPORTUNITY_FEED, type ChangeFeed } from '../../domain/change-feeds/feeds';
import { readChanges } from '../../domain/change-feeds/read';
import type { TenantRow } from '../../db/scoped-repository';
import { encodeChangeCursor, FEED_START } from '../../lib/change-cursor';
import { encodeId, type IdType } from '../../lib/ids';
import { defineRoute } from '../http/route';
import { LeadChanges, LeadChangesQuery, OpportunityChanges, OpportunityChangesQuery } from '../../contracts/changes';
import { serializeLead } from '../serializers/lead';
import { serializeOpportunity } from '../serializers/opportunity';

/** GET /v1/leads/changes and GET /v1/opportunities/changes: one change feed each (docs/decisions.md, "Change feed"). */
export function changeFeedRoutes() {
  return [
    changeFeedRoute({
      feed: LEAD_FEED,
      path: '/v1/leads/changes',
      tag: 'Leads',
      scope: 'leads:read',
      idKind: 'lead',
      key: 'lead',
      query: LeadChangesQuery,
      response: LeadChanges,
      serialize: serializeLead,
    }),
    changeFeedRoute({
      feed: OPPORTUNITY_FEED,
      path: '/v1/opportunities/changes',
      tag: 'Opportunities',
      scope: 'opportunities:read',
      idKind: 'opportunity',
      key: 'opportunity',
      query: OpportunityChangesQuery,
      response: OpportunityChanges,
      serialize: serializeOpportunity,
    }),
  ];
}

interface FeedRoute<T extends TenantRow> {
  feed: ChangeFeed<T>;
  path: string;
  tag: string;
  scope: string;
  idKind: IdType;
  /** The changed record's key in a change: `lead`, `opportunity`. */
  key: string;
  query: typeof LeadChangesQuery;
  response: z.ZodType;
  serialize: (record: T) => unknown;
}

function changeFeedRoute<T extends TenantRow>(r: FeedRoute<T>) {
  return defineRoute({
    method: 'get',
    path: r.path,
    summary: `Read the ${r.feed.name}' changes after a cursor, in the order they committed: a sync that keeps the cursor never misses a change and never reads one twice`,
    tag: r.tag,
    auth: 'tenant',
    scope: r.scope,
    query: r.query,
    response: r.response,
    errors: [410],
    handler: async ({ query, ctx }) => {
      const page = await readChanges(ctx, r.feed, query.cursor ?? FEED_START, query.limit);
      const changes = page.changes.map((c) =>
        c.type === 'changed'
          ? { type: c.type, [r.key]: r.serialize(c.record) }
          : { type: c.type, id: encodeId(r.idKind, c.id), deletedAt: c.deletedAt.toISOString() },
      );
      return {
        data: { changes, nextCursor: encodeChangeCursor(page.next), hasMore: page.hasMore },
        message: changes.length ? 'Changes retrieved' : 'No changes after this cursor yet',
      };
    },
  });
}
