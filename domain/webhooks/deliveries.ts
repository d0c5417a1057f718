import { OutboxEvent, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint, type Operation } from '../../db/entities';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { AppError, notFound } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { workflowIds } from '../../workflows/ids';
import { attemptNowSignal } from '../../workflows/webhook-delivery';
import { webhookRecoverWorkflow } from '../../workflows/webhook-recover';
import type { DomainContext } from '../context';
import { createOperation, markOperationFailed } from '../operations';
import { unitOfWork } from '../unit-of-work';
import { getWebhook } from './endpoints';
import { startDelivery } from './relay';

export interface DeliveryFilters {
  page: number;
  limit: number;
  status?: string[];
  eventType?: string;
  createdFrom?: string;
  createdTo?: string;
}

const deliveries = (ctx: DomainContext) => ctx.data.repo(WebhookDelivery);

export async function listDeliveries(ctx: DomainContext, webhookId: string, f: DeliveryFilters) {
  await getWebhook(ctx, webhookId);
  const qb = deliveries(ctx).select('d').andWhere('d.endpoint_id = :webhookId', { webhookId });
  if (f.status) qb.andWhere('d.status IN (:...status)', { status: f.status });
  if (f.eventType) qb.andWhere('d.event_type = :eventType', { eventType: f.eventType });
  if (f.createdFrom) qb.andWhere('d.created_at >= :createdFrom', { createdFrom: f.createdFrom });
  if (f.createdTo) qb.andWhere('d.created_at <= :createdTo', { createdTo: f.createdTo });
  const [rows, total] = await qb.orderBy('d.created_at', 'DESC').addOrderBy('d.id', 'DESC').page(f.page, f.limit);
  return { rows, total };
}

export async function getDelivery(ctx: DomainContext, id: string) {
  const delivery = await deliveries(ctx).findById(id);
  if (!delivery) throw notFound('Delivery');
  const event = await ctx.data.repo(OutboxEvent).findById(delivery.eventId);
  const attempts = await ctx.data.repo(WebhookDeliveryAttempt).find({
    where: { deliveryId: delivery.id },
    order: { attemptNumber: 'ASC' },
  });
  return { delivery, event, attempts };
}

const deliveryWorkflowId = (d: Pick<WebhookDelivery, 'eventId' | 'endpointId'>) =>
  workflowIds.webhookDelivery(encodeId('event', d.eventId), encodeId('webhook', d.endpointId));

/** Whether a run of this delivery's workflow is open (a new run would just join it). */
export async function isDeliveryRunning(client: Client, d: Pick<WebhookDelivery, 'eventId' | 'endpointId'>): Promise<boolean> {
  try {
    const description = await client.workflow.getHandle(deliveryWorkflowId(d)).describe();
    return description.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Asks a pending delivery's open run to attempt now; false when no run is open (it ended since the row was read). */
async function attemptNow(client: Client, d: WebhookDelivery): Promise<boolean> {
  try {
    await client.workflow.getHandle(deliveryWorkflowId(d)).signal(attemptNowSignal);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * A pending delivery (waiting for its next attempt after a failed one) attempts now, then keeps
 * its schedule; any other gets a new run of the delivery workflow (same workflow ID, so it cannot
 * overlap a running one), whose first activity resets the row to pending; attempts keep counting.
 */
export async function retryDelivery(ctx: DomainContext, id: string) {
  const delivery = await deliveries(ctx).findById(id);
  if (!delivery) throw notFound('Delivery');
  const endpoint = await ctx.data.repo(WebhookEndpoint).findById(delivery.endpointId);
  if (!endpoint) throw new AppError('conflict', 'The webhook of this delivery was deleted');
  if (endpoint.status !== 'active') throw new AppError('conflict', 'Webhook is disabled; enable it before retrying');
  const workflowId = deliveryWorkflowId(delivery);
  if (delivery.status === 'pending' && (await attemptNow(ctx.workflows.client, delivery))) return { delivery, workflowId, now: true };
  if (await isDeliveryRunning(ctx.workflows.client, delivery)) {
    throw new AppError('conflict', 'This delivery is still recording its last attempt; retry in a few seconds');
  }
  const run = await startDelivery(ctx.workflows, ctx.scope, delivery.eventId, delivery.endpointId, true);
  return { delivery, workflowId: run.workflowId, now: false };
}

/**
 * Re-sends every failed delivery of a webhook created since `since`, after the answer: records an
 * operation (with the count) and starts the workflow that re-sends them page by page, so no
 * request does work proportional to a backlog. The caller polls GET /v1/operations/:id.
 */
export async function recoverFailedDeliveries(ctx: DomainContext, webhookId: string, since: string): Promise<Operation> {
  const endpoint = await getWebhook(ctx, webhookId);
  if (endpoint.status !== 'active') throw new AppError('conflict', 'Webhook is disabled; enable it before recovering');
  const operation = await unitOfWork(ctx, async (tx) => {
    const [{ n: total }] = await tx.sql<{ n: number }>(
      (q) =>
        `SELECT count(*)::int AS n FROM ${q.from(WebhookDelivery, 'd')}
          WHERE d.endpoint_id = ${q.value(webhookId)} AND d.status = 'failed' AND d.created_at >= ${q.value(since)}`,
    );
    return createOperation(tx, {
      type: 'webhook.recover',
      resourceId: webhookId,
      total,
      workflowIdOf: (operationId) => workflowIds.webhookRecover(encodeId('webhook', webhookId), encodeId('operation', operationId)),
    });
  });
  try {
    await ctx.workflows.start(webhookRecoverWorkflow, {
      workflowId: operation.workflowId,
      args: [{ ...ctx.scope, operationId: operation.id, endpointId: webhookId, since }],
      searchAttributes: { tenantId: encodeId('tenant', ctx.scope.tenantId), environment: ctx.scope.environment },
      memo: { summary: `Recover ${operation.total} failed deliveries of ${encodeId('webhook', webhookId)} since ${since}` },
    });
  } catch (err) {
    await markOperationFailed(ctx, operation.id);
    throw err;
  }
  return operation;
}
