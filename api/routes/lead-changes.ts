import { readLeadChanges } from '../../domain/leads/changes';
import { encodeChangeCursor, FEED_START } from '../../lib/change-cursor';
import { encodeId } from '../../lib/ids';
import { defineRoute } from '../http/route';
import { LeadChanges, LeadChangesQuery } from '../../contracts/lead-changes';
import { serializeLead } from '../serializers/lead';

export function leadChangeRoutes() {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/leads/changes',
      summary:
        "Read the leads' changes after a cursor, in the order they committed: a sync that keeps the cursor never misses a change and never reads one twice",
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      query: LeadChangesQuery,
      response: LeadChanges,
      errors: [410],
      handler: async ({ query, ctx }) => {
        const page = await readLeadChanges(ctx, query.cursor ?? FEED_START, query.limit);
        const changes = page.changes.map((c) =>
          c.type === 'changed'
            ? { type: c.type, lead: serializeLead(c.lead) }
            : { type: c.type, id: encodeId('lead', c.id), deletedAt: c.deletedAt.toISOString() },
        );
        return {
          data: { changes, nextCursor: encodeChangeCursor(page.next), hasMore: page.hasMore },
          message: changes.length ? 'Changes retrieved' : 'No changes after this cursor yet',
        };
      },
    }),
  ];
}
