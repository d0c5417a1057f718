import { z } from 'zod';
import { addSuppression, listSuppressions, resubscribe } from '../../domain/communications/suppression-list';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeSuppression } from '../serializers/suppression';
import { Suppression, SuppressionCreate, SuppressionIdParams, SuppressionListQuery } from '../../contracts/suppression';

const tag = 'Communications';

/** The suppression list: addresses that unsubscribed or bounced, adding one, and re-subscribing one. */
export function suppressionRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/suppressions',
      summary:
        'Suppress an address learnt of elsewhere (an opt-out by phone, another provider’s list): its leads are marked and their campaigns end, as by an unsubscribe link',
      tag,
      auth: 'tenant',
      scope: 'communications:write',
      body: SuppressionCreate,
      response: Suppression,
      handler: async ({ body, ctx }) => ({
        data: serializeSuppression(await addSuppression(ctx, body)),
        message: 'Address suppressed',
      }),
    }),
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
