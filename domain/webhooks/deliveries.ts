import { OutboxEvent, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { WorkflowNotFoundError } from '@temporalio/client';
import { AppError, notFound } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { workflowIds } from '../../workflows/ids';
import type { DomainContext } from '../context';
import { getWebhook } from './endpoints';
import { startDelivery } from './relay';

export interface DeliveryFilters {
  page: number;
  limit: number;
  status?: string;
  eventType?: string;
  createdFrom?: string;
  createdTo?: string;
}

const deliveries = (ctx: DomainContext) => scoped(ctx.db.manager, WebhookDelivery, ctx.scope);

export async function listDeliveries(ctx: DomainContext, webhookId: string, f: DeliveryFilters) {
  await getWebhook(ctx, webhookId);
  const qb = deliveries(ctx).query('d').andWhere('d.endpoint_id = :webhookId', { webhookId });
  if (f.status) qb.andWhere('d.status = :status', { status: f.status });
  if (f.eventType) qb.andWhere('d.event_type = :eventType', { eventType: f.eventType });
  if (f.createdFrom) qb.andWhere('d.created_at >= :createdFrom', { createdFrom: f.createdFrom });
  if (f.createdTo) qb.andWhere('d.created_at <= :createdTo', { createdTo: f.createdTo });
  const [rows, total] = await qb
    .orderBy('d.created_at', 'DESC')
    .addOrderBy('d.id', 'DESC')
    .skip((f.page - 1) * f.limit)
    .take(f.limit)
    .getManyAndCount();
  return { rows, total };
}

export async function getDelivery(ctx: DomainContext, id: string) {
  const delivery = await deliveries(ctx).findById(id);
  if (!delivery) throw notFound('Delivery');
  const event = await scoped(ctx.db.manager, OutboxEvent, ctx.scope).findById(delivery.eventId);
  const attempts = await scoped(ctx.db.manager, WebhookDeliveryAttempt, ctx.scope).find({
    where: { deliveryId: delivery.id },
    order: { attemptNumber: 'ASC' },
  });
  return { delivery, event, attempts };
}

/** Whether a run of this delivery's workflow is open (a new run would just join it). */
async function isRunning(ctx: DomainContext, d: WebhookDelivery): Promise<boolean> {
  const workflowId = workflowIds.webhookDelivery(encodeId('event', d.eventId), encodeId('webhook', d.endpointId));
  try {
    const description = await ctx.workflows.client.workflow.getHandle(workflowId).describe();
    return description.status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/**
 * A new run of the delivery workflow (same workflow ID, so it cannot overlap a running one). The
 * run's first activity resets the row to pending; attempts keep counting from where they were.
 */
export async function retryDelivery(ctx: DomainContext, id: string) {
  const delivery = await deliveries(ctx).findById(id);
  if (!delivery) throw notFound('Delivery');
  const endpoint = await scoped(ctx.db.manager, WebhookEndpoint, ctx.scope).findById(delivery.endpointId);
  if (!endpoint) throw new AppError('conflict', 'The webhook of this delivery was deleted');
  if (endpoint.status !== 'active') throw new AppError('conflict', 'Webhook is disabled; enable it before retrying');
  if (await isRunning(ctx, delivery)) throw new AppError('conflict', 'This delivery is still in progress');
  const run = await startDelivery(ctx.workflows, ctx.scope, delivery.eventId, delivery.endpointId, true);
  return { delivery, workflowId: run.workflowId };
}

/** How far back `recover` reaches, and how many deliveries one call re-sends (each is a workflow start). */
export const RECOVER_WINDOW_DAYS = 30;
export const RECOVER_MAX_DELIVERIES = 100;

/**
 * Re-sends the oldest failed deliveries of a webhook created since `since`, at most
 * RECOVER_MAX_DELIVERIES per call; `hasMore` says to call again (re-sent ones are no longer failed).
 */
export async function recoverFailedDeliveries(ctx: DomainContext, webhookId: string, since: string) {
  const endpoint = await getWebhook(ctx, webhookId);
  if (endpoint.status !== 'active') throw new AppError('conflict', 'Webhook is disabled; enable it before recovering');
  const failed = await deliveries(ctx)
    .query('d')
    .andWhere('d.endpoint_id = :webhookId', { webhookId })
    .andWhere("d.status = 'failed'")
    .andWhere('d.created_at >= :since', { since })
    .orderBy('d.id', 'ASC')
    .take(RECOVER_MAX_DELIVERIES + 1)
    .getMany();
  const started: { delivery: WebhookDelivery; workflowId: string }[] = [];
  for (const d of failed.slice(0, RECOVER_MAX_DELIVERIES)) {
    if (await isRunning(ctx, d)) continue;
    const run = await startDelivery(ctx.workflows, ctx.scope, d.eventId, d.endpointId, true);
    started.push({ delivery: d, workflowId: run.workflowId });
  }
  return { started, hasMore: failed.length > RECOVER_MAX_DELIVERIES };
}
