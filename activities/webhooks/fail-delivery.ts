import type { DataSource } from 'typeorm';
import { WebhookDelivery } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { disableEndpoint } from '../../domain/webhooks/disable-endpoint';
import type { ScopeRef } from '../../workflows/types';

/**
 * Marks a delivery failed for good, then disables its endpoint when its last `autoDisableAfter`
 * finished deliveries all failed: each of those was retried for about 28 hours, so the receiver
 * has been broken for a day or more. Idempotent: re-running finds the same rows.
 */
export function failWebhookDelivery(db: DataSource, opts: { autoDisableAfter: number }) {
  return async ({ tenantId, environment, deliveryId, reason }: ScopeRef & { deliveryId: string; reason: string }): Promise<void> => {
    const scope = { tenantId, environment };
    const deliveries = scoped(db.manager, WebhookDelivery, scope);
    const delivery = await deliveries.findById(deliveryId);
    if (!delivery) return;
    if (delivery.status !== 'failed') {
      Object.assign(delivery, { status: 'failed', completedAt: new Date(), nextAttemptAt: null, lastError: reason });
      await deliveries.save(delivery);
    }
    const recent = await deliveries
      .select('d')
      .andWhere('d.endpoint_id = :endpointId', { endpointId: delivery.endpointId })
      .andWhere("d.status IN ('succeeded', 'failed')")
      .orderBy('d.completed_at', 'DESC')
      .limit(opts.autoDisableAfter)
      .getMany();
    if (recent.length >= opts.autoDisableAfter && recent.every((d) => d.status === 'failed')) {
      await disableEndpoint(db, scope, delivery.endpointId, `The last ${opts.autoDisableAfter} deliveries failed after every retry`);
    }
  };
}
