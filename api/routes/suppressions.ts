import { z } from 'zod';
import { listSuppressions, resubscribe } from '../../domain/communications/suppression-list';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeSuppression } from '../serializers/suppression';
import { Suppression, SuppressionIdParams, SuppressionListQuery } from '../schemas/suppression';

const tag = 'Communications';

/** The suppression list: addresses that unsubscribed or bounced, and re-subscribing one. */
export function suppressionRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/suppressions',
      summary: 'List suppressed addresses (unsubscribed or bounced)',
      tag,
      auth: 'tenant',
      scope: 'communications:read',
      query: SuppressionListQuery,
      response: z.array(Suppression),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listSuppressions(domainContext(deps, auth), query);
        return {
          data: rows.map(serializeSuppression),
          pagination: paginate(query.page, query.limit, total),
          message: 'Suppressions retrieved',
        };
      },
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
      handler: async ({ params, auth }) => ({
        data: serializeSuppression(await resubscribe(domainContext(deps, auth), params.id)),
        message: 'Address re-subscribed',
      }),
    }),
  ];
}
