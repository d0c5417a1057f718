import { z } from 'zod';
import { getEngagementSettings, updateEngagementSettings } from '../../domain/engagement/engagement-settings';
import { ingestEngagementEvent } from '../../domain/engagement/ingest-event';
import { listEngagementEvents } from '../../domain/engagement/list-events';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import {
  EngagementEventCreate,
  EngagementEventListQuery,
  EngagementEventRecord,
  EngagementSettings,
  EngagementSettingsUpdate,
} from '../schemas/engagement-event';
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
    defineRoute({
      method: 'get',
      path: '/v1/analytics/events',
      summary: 'List recorded engagement events, including hits classed as machine traffic (with the reason)',
      tag: 'Analytics',
      auth: 'tenant',
      scope: 'analytics:read',
      query: EngagementEventListQuery,
      response: z.array(EngagementEventRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listEngagementEvents(domainContext(deps, auth), query);
        return {
          data: rows.map(serializeEngagementEvent),
          pagination: paginate(query.page, query.limit, total),
          message: 'Events retrieved',
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/analytics/settings',
      summary: 'How opens and clicks are classed as machine traffic for this tenant',
      tag: 'Analytics',
      auth: 'tenant',
      scope: 'analytics:read',
      response: EngagementSettings,
      handler: async ({ auth }) => ({ data: await getEngagementSettings(domainContext(deps, auth)), message: 'Settings retrieved' }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/analytics/settings',
      summary: 'Change how opens and clicks are classed as machine traffic (applies to hits recorded from now on)',
      tag: 'Analytics',
      auth: 'tenant',
      scope: 'analytics:write',
      body: EngagementSettingsUpdate,
      response: EngagementSettings,
      handler: async ({ body, auth }) => ({
        data: await updateEngagementSettings(domainContext(deps, auth), body),
        message: 'Settings updated',
      }),
    }),
  ];
}
