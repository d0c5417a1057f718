import { IsNull, type DataSource } from 'typeorm';
import { OutboxEvent, WebhookEndpoint } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { workflowIds } from '../../workflows/ids';
import { webhookDeliveryWorkflow } from '../../workflows/webhook-delivery';
import { unscoped } from '../../db/unscoped';
import { subscriptionsTo } from '../../contracts/webhook-events';

/**
 * What the relay reads of an event it dispatches: a writer hands it these, not the payload, which
 * a lead create would otherwise read back and parse on every request for nothing.
 */
export const RELAYED_FIELDS = ['id', 'tenantId', 'environment', 'type', 'targetEndpointId'] as const;
export type RelayedEvent = Pick<OutboxEvent, (typeof RELAYED_FIELDS)[number]>;

/** Active endpoints of the event's tenant and environment that subscribe to it (or its one target). */
function subscribedEndpoints(db: DataSource, event: RelayedEvent): Promise<WebhookEndpoint[]> {
  const qb = scoped(db.manager, WebhookEndpoint, { tenantId: event.tenantId, environment: event.environment })
    .select('w')
    .andWhere("w.status = 'active'");
  if (event.targetEndpointId) qb.andWhere('w.id = :target', { target: event.targetEndpointId });
  else qb.andWhere('w.events && :subscriptions::text[]', { subscriptions: subscriptionsTo(event.type) });
  return qb.orderBy('w.id').getMany();
}

export function startDelivery(workflows: WorkflowStarter, scope: TenantScope, eventId: string, endpointId: string, manual = false) {
  return workflows.start(webhookDeliveryWorkflow, {
    workflowId: workflowIds.webhookDelivery(encodeId('event', eventId), encodeId('webhook', endpointId)),
    args: [{ tenantId: scope.tenantId, environment: scope.environment, eventId, endpointId, manual }],
    searchAttributes: { tenantId: encodeId('tenant', scope.tenantId), environment: scope.environment },
    memo: { summary: `Webhook delivery of ${encodeId('event', eventId)} to ${encodeId('webhook', endpointId)}` },
  });
}

/**
 * Starts one delivery workflow per subscribed endpoint, then marks the event dispatched. Starting
 * twice is harmless (the workflow ID is the business key and the first activity skips finished
 * deliveries), so a crash anywhere here at worst makes the sweep start them again.
 */
async function dispatchEvent(db: DataSource, workflows: WorkflowStarter, event: RelayedEvent): Promise<number> {
  const scope = { tenantId: event.tenantId, environment: event.environment };
  const endpoints = await subscribedEndpoints(db, event);
  for (const endpoint of endpoints) await startDelivery(workflows, scope, event.id, endpoint.id);
  await unscoped(db)
    .repo(OutboxEvent)
    .update({ id: event.id, ...scope, dispatchedAt: IsNull() }, { dispatchedAt: new Date() });
  return endpoints.length;
}

/**
 * Called after the transaction that emitted `events` committed. A failure is only logged: the
 * change is committed and its events are safe in the outbox, where the sweep will find them.
 */
export async function relayAfterCommit(db: DataSource, workflows: WorkflowStarter, events: RelayedEvent[]): Promise<void> {
  for (const event of events) {
    try {
      await dispatchEvent(db, workflows, event);
    } catch (err) {
      logger.warn({ err, eventId: encodeId('event', event.id) }, 'webhook relay failed; the outbox sweep will dispatch the event');
    }
  }
}

/**
 * The sweep: events committed at least `minAgeMs` ago and still undispatched (the relay crashed or
 * Temporal was down). This reads across tenants on purpose, as a system process; each event is
 * then handled within its own tenant scope.
 */
export async function sweepOutbox(db: DataSource, workflows: WorkflowStarter, opts: { minAgeMs: number; limit?: number }) {
  const rows: { id: string; tenant_id: string; environment: TenantScope['environment'] }[] = await unscoped(db).rows(
    `SELECT id, tenant_id, environment FROM events
      WHERE dispatched_at IS NULL AND created_at <= now() - make_interval(secs => $1)
      ORDER BY created_at LIMIT $2`,
    [opts.minAgeMs / 1000, opts.limit ?? 500],
  );
  let dispatched = 0;
  for (const row of rows) {
    const event = await scoped(db.manager, OutboxEvent, { tenantId: row.tenant_id, environment: row.environment }).findById(row.id);
    if (!event || event.dispatchedAt) continue;
    await dispatchEvent(db, workflows, event);
    dispatched++;
  }
  return { dispatched };
}
