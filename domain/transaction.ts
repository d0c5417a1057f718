import type { EntityManager } from 'typeorm';
import type { OutboxEvent } from '../db/entities';
import type { TenantScope } from '../db/scoped-repository';
import type { DomainContext } from './context';
import { emitEvent } from './webhooks/emit-event';
import { relayAfterCommit } from './webhooks/relay';
import { eventPayloads, type CatalogEventType } from './webhooks/webhook-events';

type BuilderInput<T extends CatalogEventType> = Parameters<(typeof eventPayloads)[T]>[0];

/** Writes a catalog event into the outbox, its data built by the catalog's own builder. */
export function emitCatalogEvent<T extends CatalogEventType>(
  manager: EntityManager,
  scope: TenantScope,
  type: T,
  input: BuilderInput<T>,
): Promise<OutboxEvent> {
  const build = eventPayloads[type] as (i: BuilderInput<T>) => Record<string, unknown>;
  return emitEvent(manager, scope, type, build(input));
}

export type Emit = <T extends CatalogEventType>(type: T, input: BuilderInput<T>) => Promise<void>;

/**
 * Runs `work` in one transaction; events it emits commit or roll back with its changes and are
 * handed to the relay once committed (the sweep covers a crash in between).
 */
export async function withEvents<R>(ctx: DomainContext, work: (manager: EntityManager, emit: Emit) => Promise<R>): Promise<R> {
  const events: OutboxEvent[] = [];
  const result = await ctx.db.transaction((manager) =>
    work(manager, async (type, input) => {
      events.push(await emitCatalogEvent(manager, ctx.scope, type, input));
    }),
  );
  if (events.length) await relayAfterCommit(ctx.db, ctx.workflows, events, ctx.webhooks?.relayHooks);
  return result;
}
