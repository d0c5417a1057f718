import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { OutboxEvent, WebhookDelivery } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import type { WebhookDeliveryRef } from '../../workflows/types';
import { ScopedData } from '../../db/scoped-data';

export interface PreparedDelivery {
  deliveryId: string;
  status: string;
  /** True when this (event, endpoint) was already delivered or given up on: never send twice. */
  skip: boolean;
  /** The worker's retry schedule when configured (WEBHOOK_RETRY_DELAYS_MS); unset: the workflow's default. */
  retryDelaysMs?: number[];
}

/**
 * Creates the delivery row keyed by (event, endpoint), or finds it. A second start of the same
 * delivery (relay and sweep racing, a re-run after completion) finds a finished row and skips; a
 * manual retry resets it to pending instead.
 */
export function prepareWebhookDelivery(db: DataSource, retryDelaysMs?: number[]) {
  return async ({ tenantId, environment, eventId, endpointId, manual }: WebhookDeliveryRef): Promise<PreparedDelivery> => {
    const scope = { tenantId, environment };
    const event = await scoped(db.manager, OutboxEvent, scope).findById(eventId);
    if (!event) throw ApplicationFailure.nonRetryable(`Event ${eventId} not found`, 'WebhookEventMissing');
    await new ScopedData(db.manager, scope).sql((q) => {
      const [tenant, env] = q.scopeValues();
      return `INSERT INTO ${q.table(WebhookDelivery)} (tenant_id, environment, event_id, endpoint_id, event_type, status, next_attempt_at)
        VALUES (${tenant}, ${env}, ${q.value(eventId)}, ${q.value(endpointId)}, ${q.value(event.type)}, 'pending', now())
        ON CONFLICT (event_id, endpoint_id) DO NOTHING`;
    });
    const deliveries = scoped(db.manager, WebhookDelivery, scope);
    const delivery = await deliveries.findOne({ eventId, endpointId });
    if (!delivery) throw ApplicationFailure.nonRetryable('Delivery row missing after upsert', 'WebhookDeliveryMissing');
    if (delivery.status === 'pending') return { deliveryId: delivery.id, status: delivery.status, skip: false, retryDelaysMs };
    if (!manual) return { deliveryId: delivery.id, status: delivery.status, skip: true };
    Object.assign(delivery, { status: 'pending', completedAt: null, nextAttemptAt: new Date() });
    await deliveries.save(delivery);
    return { deliveryId: delivery.id, status: 'pending', skip: false, retryDelaysMs };
  };
}
