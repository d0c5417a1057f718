import { randomBytes } from 'node:crypto';
import { WebhookEndpoint } from '../../db/entities';
import { config } from '../../lib/config';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { SECRET_PREFIX } from '../../lib/webhooks/signature';
import { assertPublicTarget, TargetRefusedError } from '../../lib/webhooks/target-guard';
import type { WebhookCreate, WebhookUpdate } from '../../contracts/webhook';
import type { DomainContext } from '../context';
import { TEST_EVENT_TYPE } from '../../contracts/webhook-events';
import { unitOfWork } from '../unit-of-work';

/** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export const generateSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64');

const endpoints = (ctx: DomainContext) => ctx.data.repo(WebhookEndpoint);

async function checkUrl(ctx: DomainContext, url: string): Promise<void> {
  try {
    await assertPublicTarget(url, ctx.webhooks?.allowPrivateTargets ?? false);
  } catch (err) {
    if (err instanceof TargetRefusedError) throw validationFailed([{ field: 'url', message: err.message }]);
    throw err;
  }
}

/**
 * Every event fans out to each endpoint of the tenant and environment (one delivery workflow
 * each), so their number is capped: WEBHOOK_ENDPOINTS_MAX, default 20.
 */
const maxWebhookEndpoints = (ctx: DomainContext) => ctx.webhooks?.maxEndpoints ?? config.WEBHOOK_ENDPOINTS_MAX;

export async function createWebhook(ctx: DomainContext, input: WebhookCreate): Promise<WebhookEndpoint> {
  await checkUrl(ctx, input.url);
  const status = input.status ?? 'active';
  return unitOfWork(ctx, async (tx) => {
    // Serialises creates of one tenant and environment, so concurrent ones cannot pass the cap together.
    await tx.lockScope('webhook-endpoints');
    const repo = tx.repo(WebhookEndpoint);
    const max = maxWebhookEndpoints(ctx);
    if ((await repo.count({})) >= max) {
      throw validationFailed([
        {
          field: 'url',
          message: `At most ${max} webhook endpoints per environment; delete one you no longer use, or send more event types to one endpoint`,
        },
      ]);
    }
    return repo.insert({
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      status,
      secret: generateSecret(),
      disabledAt: status === 'disabled' ? new Date() : null,
    });
  });
}

export async function getWebhook(ctx: DomainContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = await endpoints(ctx).findById(id);
  if (!endpoint) throw notFound('Webhook');
  return endpoint;
}

export async function listWebhooks(ctx: DomainContext, q: { page: number; limit: number; status?: string[] }) {
  const qb = endpoints(ctx).select('w');
  if (q.status) qb.andWhere('w.status IN (:...status)', { status: q.status });
  const [rows, total] = await qb.orderBy('w.created_at', 'DESC').addOrderBy('w.id', 'DESC').page(q.page, q.limit);
  return { rows, total };
}

export async function updateWebhook(ctx: DomainContext, id: string, patch: WebhookUpdate): Promise<WebhookEndpoint> {
  const endpoint = await getWebhook(ctx, id);
  if (patch.url !== undefined) await checkUrl(ctx, patch.url);
  if (patch.url !== undefined) endpoint.url = patch.url;
  if (patch.events !== undefined) endpoint.events = patch.events;
  if (patch.description !== undefined) endpoint.description = patch.description;
  if (patch.status !== undefined && patch.status !== endpoint.status) {
    // Re-enabling clears the service's reason; a user's own disable records no reason.
    Object.assign(endpoint, { status: patch.status, disabledReason: null, disabledAt: patch.status === 'disabled' ? new Date() : null });
  }
  return endpoints(ctx).save(endpoint);
}

export async function deleteWebhook(ctx: DomainContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhook(ctx, id);
  await endpoints(ctx).deleteById(id);
  return endpoint;
}

export async function rotateWebhookSecret(ctx: DomainContext, id: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhook(ctx, id);
  Object.assign(endpoint, {
    previousSecret: endpoint.secret,
    previousSecretExpiresAt: new Date(Date.now() + SECRET_OVERLAP_MS),
    secret: generateSecret(),
  });
  return endpoints(ctx).save(endpoint);
}

/** A `webhook.test` event for this endpoint only, through the same outbox and workflow as real events. */
export async function sendTestEvent(ctx: DomainContext, id: string) {
  const endpoint = await getWebhook(ctx, id);
  if (endpoint.status !== 'active') throw new AppError('conflict', 'Webhook is disabled; enable it before sending a test event');
  const event = await unitOfWork(ctx, (tx) =>
    tx.emitRaw(
      TEST_EVENT_TYPE,
      { message: 'This is a test event.', webhookId: encodeId('webhook', endpoint.id) },
      { targetEndpointId: endpoint.id },
    ),
  );
  // The event is written only while its endpoint is active: it was disabled or deleted meanwhile.
  if (!event) throw new AppError('conflict', 'Webhook was disabled or deleted while the test event was sent; enable it and try again');
  return { event, endpoint };
}
