import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { OutboxEvent, WebhookDelivery } from '../../db/entities';
import type { DeliveryStatus } from '../../db/entities/webhook-delivery';
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
 * manual retry resets it to pending instead. The event's check, the insert and the read of the row
 * are one statement (three before: a delivery's statements cost PostgreSQL more than the bare
 * worker's whole workflow, `npm run bench`, T6); a row a concurrent start inserted after the
 * statement's snapshot is read again on its own.
 */
export function prepareWebhookDelivery(db: DataSource, retryDelaysMs?: number[]) {
  return async ({ tenantId, environment, eventId, endpointId, manual }: WebhookDeliveryRef): Promise<PreparedDelivery> => {
    const data = new ScopedData(db.manager, { tenantId, environment });
    const [upserted] = await data.sql<{ event_type: string | null; id: string | null; status: DeliveryStatus | null }>((q) => {
      const [tenant, env] = q.scopeValues();
      return `WITH event AS (SELECT e.type FROM ${q.from(OutboxEvent, 'e')} WHERE e.id = ${q.value(eventId)}),
        inserted AS (
          INSERT INTO ${q.table(WebhookDelivery)} (tenant_id, environment, event_id, endpoint_id, event_type, status, next_attempt_at)
          SELECT ${tenant}, ${env}, ${q.value(eventId)}, ${q.value(endpointId)}, event.type, 'pending', now() FROM event
          ON CONFLICT (event_id, endpoint_id) DO NOTHING
          RETURNING id, status)
        SELECT (SELECT type FROM event) AS event_type, found.id::text AS id, found.status FROM (SELECT 1) one LEFT JOIN (
          SELECT id, status FROM inserted
          UNION ALL SELECT d.id, d.status FROM ${q.from(WebhookDelivery, 'd')} WHERE d.event_id = ${q.value(eventId)} AND d.endpoint_id = ${q.value(endpointId)}
          LIMIT 1) found ON true`;
    });
    if (upserted.event_type === null) throw ApplicationFailure.nonRetryable(`Event ${eventId} not found`, 'WebhookEventMissing');
    const delivery =
      upserted.id !== null
        ? { id: upserted.id, status: upserted.status as DeliveryStatus }
        : await data.repo(WebhookDelivery).findOne({ eventId, endpointId });
    if (!delivery) throw ApplicationFailure.nonRetryable('Delivery row missing after upsert', 'WebhookDeliveryMissing');
    if (delivery.status === 'pending') return { deliveryId: delivery.id, status: delivery.status, skip: false, retryDelaysMs };
    if (!manual) return { deliveryId: delivery.id, status: delivery.status, skip: true };
    await data.repo(WebhookDelivery).updateWhere({ id: delivery.id }, { status: 'pending', completedAt: null, nextAttemptAt: new Date() });
    return { deliveryId: delivery.id, status: 'pending', skip: false, retryDelaysMs };
  };
}
