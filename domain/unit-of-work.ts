import type { OutboxEvent } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import type { DomainContext } from './context';
import { emitEvent } from './webhooks/emit-event';
import { relayAfterCommit, type RelayedEvent } from './webhooks/relay';
import { insertClaimedAudit, PendingAudit, type WrittenAudit } from './pending-audit';
import { eventPayloads, type CatalogEventType, type EventType } from '../contracts/webhook-events';

type BuilderInput<T extends CatalogEventType> = Parameters<(typeof eventPayloads)[T]>[0];

/**
 * One transaction within one tenant scope: repositories and statements that carry the scope
 * (ScopedData), plus the outbox. Events emitted here commit or roll back with the changes they
 * report and are handed to the relay once committed (the sweep covers a crash in between).
 */
export class UnitOfWork extends ScopedData {
  /** What the relay dispatches after the commit. */
  readonly events: RelayedEvent[] = [];

  /** Writes a catalog event into the outbox, its data built by the catalog's own builder. */
  async emit<T extends CatalogEventType>(type: T, input: BuilderInput<T>): Promise<OutboxEvent | null> {
    const build = eventPayloads[type] as (i: BuilderInput<T>) => Record<string, unknown>;
    return this.emitRaw(type, build(input));
  }

  /** An event whose data the caller built (a test ping aimed at one endpoint). Null: nobody subscribes, nothing written. */
  async emitRaw(type: string, data: Record<string, unknown>, opts: { targetEndpointId?: string } = {}): Promise<OutboxEvent | null> {
    const event = await emitEvent(this, type as EventType, data, opts);
    if (event) this.events.push(event);
    return event;
  }
}

export type UnitOfWorkContext = Pick<DomainContext, 'db' | 'scope' | 'workflows' | 'audit'>;

/**
 * For events written by a single statement that committed on its own (the one-statement lead
 * create) or by a transaction (unitOfWork, a workflow activity's): starts their deliveries once
 * the caller has moved on. A write does not wait for Temporal, one start per event and subscribed
 * endpoint (a batch of 100 leads with one subscriber waited 7 s for them). A relay that is dropped,
 * fails or dies with the process leaves its events undispatched in the outbox, for the sweep.
 */
export function relayCommitted(ctx: Pick<UnitOfWorkContext, 'db' | 'workflows'>, events: RelayedEvent[]): void {
  if (!events.length) return; // nobody subscribed: nothing was written (outboxInsertSql)
  ctx.workflows.runSoon(`webhook relay of ${events.length} event(s)`, () => relayAfterCommit(ctx.db, ctx.workflows, events));
}

/** Attempts of a unit of work that PostgreSQL aborts to break a deadlock (or a serialization failure). */
const ATTEMPTS = 3;
const RETRIED_CODES = new Set(['40P01', '40001']);

/**
 * Runs `work` as one unit of work and relays its events after the commit. The request's audit
 * entry, while no other change has written it, commits in the same transaction (pending-audit.ts).
 *
 * A transaction PostgreSQL aborts to break a deadlock (40P01) has rolled back whole, and
 * PostgreSQL's advice is to run it again: it is, up to ATTEMPTS times after a short random
 * pause, so two requests that lock the same rows in opposite orders (a re-subscribe and a merge
 * of that address's lead, say) both succeed instead of one answering 500. `work` must therefore
 * keep its effects inside `tx` (what it returns is used after the commit), as every caller does.
 */
export async function unitOfWork<R>(ctx: UnitOfWorkContext, work: (tx: UnitOfWork) => Promise<R>): Promise<R> {
  let tx: UnitOfWork | undefined;
  const audit = PendingAudit.claim(ctx);
  let written: WrittenAudit | null = null;
  let result: R;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        result = await ctx.db.transaction(async (manager) => {
          const r = await work((tx = new UnitOfWork(manager, ctx.scope)));
          if (audit) written = await insertClaimedAudit(tx, audit, r);
          return r;
        });
        break;
      } catch (err) {
        if (attempt >= ATTEMPTS || !RETRIED_CODES.has((err as { code?: string })?.code ?? '')) throw err;
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
      }
    }
  } catch (err) {
    audit?.done(null);
    throw err;
  }
  audit?.done(written);
  if (tx?.events.length) relayCommitted(ctx, tx.events);
  return result;
}
