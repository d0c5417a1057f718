import { z } from 'zod';
import { listSuppressions, resubscribe } from '../../domain/communications/suppression-list';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeSuppression } from '../serializers/suppression';
import { Suppression, SuppressionIdParams, SuppressionListQuery } from '../../contracts/suppression';

const tag = 'Communications';

/** The suppression list: addresses that unsubscribed or bounced, and re-subscribing one. */
export function suppressionRoutes() {
  return [
    defineListRoute({
      method: 'get',
      path: '/v1/suppressions',
      summary: 'List suppressed addresses (unsubscribed or bounced)',
      tag,
      auth: 'tenant',
      scope: 'communications:read',
      query: SuppressionListQuery,
      response: z.array(Suppression),
      message: 'Suppressions retrieved',
      serialize: serializeSuppression,
      handler: ({ query, ctx }) => listSuppressions(ctx, query),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/suppressions/:id',
      summary: 'Re-subscribe an address: remove it from the suppression list and clear its leads’ unsubscribedAt and bouncedAt',
      tag,
      auth: 'tenant',
      scope: 'communications:write',
      params: SuppressionIdParams,
      response: Suppression,
      handler: async ({ params, ctx }) => ({
        data: serializeSuppression(await resubscribe(ctx, params.id)),
        message: 'Address re-subscribed',
      }),
    }),
  ];
}
