import { z } from 'zod';
import { getDelivery, listDeliveries, recoverFailedDeliveries, retryDelivery } from '../../domain/webhooks/deliveries';
import { encodeId } from '../../lib/ids';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeOperation } from '../serializers/operation';
import { RECOVER_WINDOW_DAYS } from '../../contracts/webhook';
import { serializeDelivery, serializeDeliveryDetail } from '../serializers/webhook';
import { Operation } from '../../contracts/operation';
import {
  DeliveryIdParams,
  DeliveryListQuery,
  RecoverBody,
  WebhookDelivery,
  WebhookDeliveryDetail,
  WebhookIdParams,
} from '../../contracts/webhook';

const TAG = 'Webhooks';
const BASE = '/v1/integrations/webhooks';

const Redelivery = z.object({ deliveryIds: z.array(z.string()), workflowIds: z.array(z.string()) });

export function webhookDeliveryRoutes() {
  return [
    defineListRoute({
      method: 'get',
      path: `${BASE}/:id/deliveries`,
      summary: 'The delivery log of a webhook endpoint',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:read',
      params: WebhookIdParams,
      query: DeliveryListQuery,
      response: z.array(WebhookDelivery),
      message: 'Deliveries retrieved',
      serialize: serializeDelivery,
      handler: ({ params, query, ctx }) => listDeliveries(ctx, params.id, query),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/deliveries/:deliveryId`,
      summary: 'One delivery with its payload and every attempt',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:read',
      params: DeliveryIdParams,
      response: WebhookDeliveryDetail,
      handler: async ({ params, ctx }) => {
        const { delivery, event, attempts } = await getDelivery(ctx, params.deliveryId);
        return { data: serializeDeliveryDetail(delivery, event, attempts), message: 'Delivery retrieved' };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/deliveries/:deliveryId/retry`,
      summary:
        'Send a delivery again: a pending one attempts now (then keeps its schedule), any other gets a new run of its delivery workflow',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: DeliveryIdParams,
      response: Redelivery,
      status: 202,
      handler: async ({ params, ctx }) => {
        const { delivery, workflowId, now } = await retryDelivery(ctx, params.deliveryId);
        return {
          data: { deliveryIds: [encodeId('delivery', delivery.id)], workflowIds: [workflowId] },
          message: now ? 'Delivery attempt brought forward to now' : 'Delivery retry started',
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:id/recover`,
      summary: `Re-send every failed delivery of this endpoint created since a time (within ${RECOVER_WINDOW_DAYS} days): 202 with the operation to poll`,
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      body: RecoverBody,
      response: Operation,
      status: 202,
      handler: async ({ params, body, ctx }) => {
        const operation = await recoverFailedDeliveries(ctx, params.id, body.since);
        return {
          data: serializeOperation(operation),
          message: `Re-sending ${operation.total} failed deliveries; poll GET /v1/operations/${encodeId('operation', operation.id)}`,
        };
      },
    }),
  ];
}
