import { ingestEngagementEvent } from '../../domain/engagement/ingest-event';
import { defineRoute } from '../http/route';
import { EngagementEventCreate, EngagementEventRecord } from '../../contracts/engagement-event';
import { serializeEngagementEvent } from '../serializers/engagement-event';

/** Engagement events: stored, then signalled into the enrollments they concern. */
export function analyticsRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/analytics/events',
      summary: 'Ingest an engagement event (eventType is returned as type)',
      tag: 'Analytics',
      auth: 'tenant',
      scope: 'analytics:write',
      body: EngagementEventCreate,
      response: EngagementEventRecord,
      handler: async ({ body, ctx }) => ({
        data: serializeEngagementEvent(await ingestEngagementEvent(ctx, body)),
        message: 'Event recorded',
      }),
    }),
  ];
}
