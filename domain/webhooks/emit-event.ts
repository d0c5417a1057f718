import { OutboxEvent, WebhookEndpoint } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import { subscriptionsTo, type EventType } from '../../contracts/webhook-events';

export interface OutboxInsert {
  type: EventType;
  data: Record<string, unknown>;
  /** Set for events meant for one endpoint only (test events). */
  targetEndpointId?: string | null;
}

/**
 * The INSERT of an outbox row, written only when an active endpoint subscribes to it: an event
 * nobody would receive is not stored at all (docs/decisions.md, "Outbox"), so a tenant without
 * webhooks pays a lookup instead of a row and its index entries, and `events` does not grow with
 * every mutation. Every row written is undispatched, for the relay.
 */
export function outboxInsertSql(q: ScopedSqlBuilder, e: OutboxInsert, opts: { where?: string } = {}): string {
  const subscribed = subscribedSql(q, e);
  return q.insert(
    OutboxEvent,
    { type: e.type, data: e.data, targetEndpointId: e.targetEndpointId ?? null },
    { where: opts.where ? `${opts.where} AND ${subscribed}` : subscribed },
  );
}

/**
 * True when an active endpoint of the scope subscribes to the event (or is its one target).
 * `typeSql` instead of `type`: an expression giving each row's own type (rows of several types in
 * one insertMany), whose subscriptions PostgreSQL then names as subscriptionsTo does.
 */
export function subscribedSql(
  q: ScopedSqlBuilder,
  e: Pick<OutboxInsert, 'targetEndpointId'> & ({ type: EventType } | { typeSql: string }),
): string {
  const [tenant, environment] = q.scopeValues();
  // Each q.value() is a parameter of the statement: only the branch taken may add one.
  const subscriptions = () =>
    'typeSql' in e ? `ARRAY['*', split_part(${e.typeSql}, '.', 1) || '.*', ${e.typeSql}]` : `${q.value(subscriptionsTo(e.type))}::text[]`;
  const subscriber = e.targetEndpointId ? `w.id = ${q.value(e.targetEndpointId)}::bigint` : `w.events && ${subscriptions()}`;
  return `EXISTS (SELECT 1 FROM ${q.table(WebhookEndpoint)} w WHERE w.tenant_id = ${tenant} AND w.environment = ${environment} AND w.status = 'active' AND ${subscriber})`;
}

/**
 * Writes an event into the outbox within `data` (a unit of work: the event commits or rolls back
 * together with the change it reports). Deliveries start after commit (relay) or, if that never
 * happens, from the sweep. Null when no active endpoint subscribes: nothing was written.
 */
export async function emitEvent(
  data: ScopedData,
  type: EventType,
  payload: Record<string, unknown>,
  opts: { targetEndpointId?: string } = {},
): Promise<OutboxEvent | null> {
  const [event] = await data.sqlEntities(
    OutboxEvent,
    (q) => `${outboxInsertSql(q, { type, data: payload, targetEndpointId: opts.targetEndpointId })} RETURNING *`,
  );
  return event ?? null;
}
