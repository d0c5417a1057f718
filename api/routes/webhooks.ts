import { z } from 'zod';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
} from '../../domain/webhooks/endpoints';
import { eventCatalog } from '../../contracts/webhook-events';
import { encodeId } from '../../lib/ids';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeWebhook } from '../serializers/webhook';
import {
  Webhook,
  WebhookCatalog,
  WebhookCreate,
  WebhookIdParams,
  WebhookListQuery,
  WebhookSecret,
  WebhookUpdate,
  WebhookWithSecret,
} from '../../contracts/webhook';

const TAG = 'Webhooks';
const BASE = '/v1/integrations/webhooks';

/** Secret-bearing answers: `secret` plus, during a rotation, when the previous one stops signing. */
const secretOf = (w: { secret: string; previousSecretExpiresAt: Date | null }) => ({
  secret: w.secret,
  previousSecretExpiresAt:
    w.previousSecretExpiresAt && w.previousSecretExpiresAt > new Date() ? w.previousSecretExpiresAt.toISOString() : null,
});

export function webhookRoutes() {
  return [
    // Before `${BASE}/:id`, which would otherwise answer "catalog" with 404.
    defineRoute({
      method: 'get',
      path: `${BASE}/catalog`,
      summary: 'The webhook event catalog: every event by group, with an example payload',
      tag: TAG,
      auth: 'tenant',
      response: WebhookCatalog,
      handler: async () => ({ data: eventCatalog(), message: 'Webhook event catalog retrieved' }),
    }),
    defineRoute({
      method: 'post',
      path: BASE,
      summary: 'Register a webhook endpoint (the response shows its signing secret)',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      body: WebhookCreate,
      response: WebhookWithSecret,
      handler: async ({ body, ctx }) => {
        const w = await createWebhook(ctx, body);
        return { data: { ...serializeWebhook(w), secret: w.secret }, message: 'Webhook created' };
      },
    }),
    defineListRoute({
      method: 'get',
      path: BASE,
      summary: 'List webhook endpoints',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:read',
      query: WebhookListQuery,
      response: z.array(Webhook),
      message: 'Webhooks retrieved',
      serialize: serializeWebhook,
      handler: ({ query, ctx }) => listWebhooks(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:id`,
      summary: 'Get a webhook endpoint',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:read',
      params: WebhookIdParams,
      response: Webhook,
      handler: async ({ params, ctx }) => ({
        data: serializeWebhook(await getWebhook(ctx, params.id)),
        message: 'Webhook retrieved',
      }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:id`,
      summary: 'Update a webhook endpoint (url, events, description, status)',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      body: WebhookUpdate,
      response: Webhook,
      handler: async ({ params, body, ctx }) => ({
        data: serializeWebhook(await updateWebhook(ctx, params.id, body)),
        message: 'Webhook updated',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:id`,
      summary: 'Delete a webhook endpoint',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      response: Webhook,
      handler: async ({ params, ctx }) => ({
        data: serializeWebhook(await deleteWebhook(ctx, params.id)),
        message: 'Webhook deleted',
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:id/secret`,
      summary: 'Get the signing secret of a webhook endpoint',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      response: WebhookSecret,
      handler: async ({ params, ctx }) => ({
        data: secretOf(await getWebhook(ctx, params.id)),
        message: 'Webhook secret retrieved',
      }),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:id/rotate-secret`,
      summary: 'Rotate the signing secret; the previous one keeps signing alongside for 24 hours',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      response: WebhookSecret,
      status: 200,
      handler: async ({ params, ctx }) => ({
        data: secretOf(await rotateWebhookSecret(ctx, params.id)),
        message: 'Webhook secret rotated',
      }),
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:id/test`,
      summary: 'Send a webhook.test event to this endpoint',
      tag: TAG,
      auth: 'tenant',
      scope: 'webhooks:write',
      params: WebhookIdParams,
      response: z.object({ eventId: z.string(), type: z.string() }),
      status: 202,
      handler: async ({ params, ctx }) => {
        const { event } = await sendTestEvent(ctx, params.id);
        return { data: { eventId: encodeId('event', event.id), type: event.type }, message: 'Test event queued for delivery' };
      },
    }),
  ];
}
