import { ingestEngagementEvent } from '../../domain/engagement/ingest-event';
import { domainContext, type AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import { EngagementEventCreate, EngagementEventRecord } from '../schemas/engagement-event';
import { serializeEngagementEvent } from '../serializers/engagement-event';

/** Engagement events (spec 4.3): stored, then signalled into the enrollments they concern. */
export function analyticsRoutes(deps: AppDeps) {
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
      handler: async ({ body, auth }) => ({
        data: serializeEngagementEvent(await ingestEngagementEvent(domainContext(deps, auth), body)),
        message: 'Event recorded',
      }),
    }),
  ];
}
