import type { EntityManager } from 'typeorm';
import { OutboxEvent } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { insertSql, metadataOf, Params, queryEntities, Raw } from '../../db/sql';
import type { EventType } from '../../contracts/webhook-events';

export interface OutboxInsert {
  scope: TenantScope;
  type: EventType;
  data: Record<string, unknown>;
  /** Set for events meant for one endpoint only (test events). */
  targetEndpointId?: string | null;
}

/**
 * The INSERT of an outbox row. An event no active endpoint subscribes to is written as dispatched
 * already, so the relay has nothing to do for it and the sweep never sees it: most mutations of
 * a tenant without webhooks cost one statement for their event, not three.
 */
export function outboxInsertSql(manager: EntityManager, e: OutboxInsert, p: Params, opts: { where?: string } = {}): string {
  const tenant = p.add(e.scope.tenantId);
  const environment = p.add(e.scope.environment);
  const subscriber = e.targetEndpointId
    ? `w.id = ${p.add(e.targetEndpointId)}::bigint`
    : `(${p.add(e.type)}::text = ANY(w.events) OR '*' = ANY(w.events))`;
  const subscribed = `EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = ${tenant}::bigint AND w.environment = ${environment}::varchar AND w.status = 'active' AND ${subscriber})`;
  return insertSql(
    manager,
    metadataOf(manager, OutboxEvent),
    {
      tenantId: e.scope.tenantId,
      environment: e.scope.environment,
      type: e.type,
      data: e.data,
      targetEndpointId: e.targetEndpointId ?? null,
      dispatchedAt: new Raw(`CASE WHEN ${subscribed} THEN NULL ELSE now() END`),
    },
    p,
    opts,
  );
}

/**
 * Writes an event into the outbox with the caller's transaction manager: the event commits or
 * rolls back together with the change it reports. Deliveries start after commit (relay) or, if
 * that never happens, from the sweep.
 */
export async function emitEvent(
  manager: EntityManager,
  scope: TenantScope,
  type: EventType,
  data: Record<string, unknown>,
  opts: { targetEndpointId?: string } = {},
): Promise<OutboxEvent> {
  const p = new Params();
  const sql = `${outboxInsertSql(manager, { scope, type, data, targetEndpointId: opts.targetEndpointId }, p)} RETURNING *`;
  const [event] = await queryEntities<OutboxEvent>(manager, metadataOf(manager, OutboxEvent), sql, p);
  return event;
}
