import { z } from 'zod';
import { getEngagementSettings, updateEngagementSettings } from '../../domain/engagement/engagement-settings';
import { ingestEngagementEvent } from '../../domain/engagement/ingest-event';
import { listEngagementEvents } from '../../domain/engagement/list-events';
import { defineListRoute, defineRoute } from '../http/route';
import {
  EngagementEventCreate,
  EngagementEventListQuery,
  EngagementEventRecord,
  EngagementSettings,
  EngagementSettingsUpdate,
} from '../../contracts/engagement-event';
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
    defineListRoute({
      method: 'get',
      path: '/v1/analytics/events',
      summary: 'List recorded engagement events, including hits classed as machine traffic (with the reason)',
      tag: 'Analytics',
      auth: 'tenant',
      scope: 'analytics:read',
      query: EngagementEventListQuery,
      response: z.array(EngagementEventRecord),
      message: 'Events retrieved',
      serialize: serializeEngagementEvent,
      handler: ({ query, ctx }) => listEngagementEvents(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/analytics/settings',
      summary: 'How opens and clicks are classed as machine traffic for this tenant',
      tag: 'Analytics',
      auth: 'tenant',
      scope: 'analytics:read',
      response: EngagementSettings,
      handler: async ({ ctx }) => ({ data: await getEngagementSettings(ctx), message: 'Settings retrieved' }),
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
      handler: async ({ body, ctx }) => ({
        data: await updateEngagementSettings(ctx, body),
        message: 'Settings updated',
      }),
    }),
  ];
}
