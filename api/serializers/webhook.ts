import type { OutboxEvent, WebhookDelivery as DeliveryEntity, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/entities';
import { buildEnvelope } from '../../contracts/webhook-envelope';
import { encodeId } from '../../lib/ids';
import type { Webhook, WebhookDelivery } from '../../contracts/webhook';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Never includes the secret: only the creation response and GET .../secret show it. */
export function serializeWebhook(w: WebhookEndpoint): Webhook {
  return {
    id: encodeId('webhook', w.id),
    url: w.url,
    events: w.events,
    description: w.description,
    status: w.status,
    disabledReason: w.disabledReason,
    disabledAt: iso(w.disabledAt),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

export function serializeDelivery(d: DeliveryEntity): WebhookDelivery {
  return {
    id: encodeId('delivery', d.id),
    webhookId: encodeId('webhook', d.endpointId),
    eventId: encodeId('event', d.eventId),
    eventType: d.eventType,
    status: d.status,
    attemptCount: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    nextAttemptAt: iso(d.nextAttemptAt),
    completedAt: iso(d.completedAt),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export function serializeDeliveryDetail(d: DeliveryEntity, event: OutboxEvent | null, attempts: WebhookDeliveryAttempt[]) {
  return {
    ...serializeDelivery(d),
    payload: event ? buildEnvelope(event) : null,
    attempts: attempts.map((a) => ({
      attemptNumber: a.attemptNumber,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      responseSnippet: a.responseSnippet,
      error: a.error,
      createdAt: a.createdAt.toISOString(),
    })),
  };
}
