import { OutboxEvent, WebhookEndpoint } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import type { EventType } from '../../contracts/webhook-events';

export interface OutboxInsert {
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
export function outboxInsertSql(q: ScopedSqlBuilder, e: OutboxInsert, opts: { where?: string } = {}): string {
  return q.insert(
    OutboxEvent,
    { type: e.type, data: e.data, targetEndpointId: e.targetEndpointId ?? null, dispatchedAt: q.raw(dispatchedAtSql(q, e)) },
    opts,
  );
}

/**
 * An outbox row's dispatched_at: NULL (to relay) when an active endpoint subscribes to it, else now().
 * `typeSql` instead of `type`: an expression giving each row's own type (rows of several types in one insertMany).
 */
export function dispatchedAtSql(
  q: ScopedSqlBuilder,
  e: Pick<OutboxInsert, 'targetEndpointId'> & ({ type: EventType } | { typeSql: string }),
): string {
  const [tenant, environment] = q.scopeValues();
  // Each q.value() is a parameter of the statement: only the branch taken may add one.
  const type = () => ('typeSql' in e ? e.typeSql : `${q.value(e.type)}::text`);
  const subscriber = e.targetEndpointId
    ? `w.id = ${q.value(e.targetEndpointId)}::bigint`
    : `(${type()} = ANY(w.events) OR '*' = ANY(w.events))`;
  const subscribed = `EXISTS (SELECT 1 FROM ${q.table(WebhookEndpoint)} w WHERE w.tenant_id = ${tenant} AND w.environment = ${environment} AND w.status = 'active' AND ${subscriber})`;
  return `CASE WHEN ${subscribed} THEN NULL ELSE now() END`;
}

/**
 * Writes an event into the outbox within `data` (a unit of work: the event commits or rolls back
 * together with the change it reports). Deliveries start after commit (relay) or, if that never
 * happens, from the sweep.
 */
export async function emitEvent(
  data: ScopedData,
  type: EventType,
  payload: Record<string, unknown>,
  opts: { targetEndpointId?: string } = {},
): Promise<OutboxEvent> {
  const [event] = await data.sqlEntities(
    OutboxEvent,
    (q) => `${outboxInsertSql(q, { type, data: payload, targetEndpointId: opts.targetEndpointId })} RETURNING *`,
  );
  return event;
}
