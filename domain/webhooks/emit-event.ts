import type { EntityManager } from 'typeorm';
import { OutboxEvent } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import type { EventType } from './webhook-events';

/**
 * Writes an event into the outbox with the caller's transaction manager: the event commits or
 * rolls back together with the change it reports. Deliveries start after commit (relay) or, if
 * that never happens, from the sweep.
 */
export function emitEvent(
  manager: EntityManager,
  scope: TenantScope,
  type: EventType,
  data: Record<string, unknown>,
  opts: { targetEndpointId?: string } = {},
): Promise<OutboxEvent> {
  return scoped(manager, OutboxEvent, scope).insert({ type, data, targetEndpointId: opts.targetEndpointId ?? null, dispatchedAt: null });
}
