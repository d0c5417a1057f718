import type { Lead, PendingEnrollment } from '../../db/entities';
import { togetherOrEachAlone, type Settled } from '../../lib/group-commit';
import { encodeId } from '../../lib/ids';
import { leadCreateGroupSize } from '../../lib/metrics';
import type { DomainContext } from '../context';
import { PendingAudit, writtenAudit } from '../pending-audit';
import type { RelayedEvent } from '../webhooks/relay';
import { ScopeGroupCommit } from '../scope-group-commit';
import { writeLeads, type NewLeadRow } from './write-leads';

export interface InsertedLead {
  lead: Lead;
  /** Events to relay and the enrollment to start: a group's go to its first create, the others get none. */
  events: RelayedEvent[];
  pending: PendingEnrollment | null;
}

interface Create {
  ctx: DomainContext;
  row: NewLeadRow;
  mustBeDefault: boolean;
}

const groups = new ScopeGroupCommit<Create, InsertedLead | null>(writeGroups, 100);

/**
 * Writes a new lead (writeLeads) with its request's audit entry, while its status holds (with
 * `mustBeDefault`, while it is still the scope's default); null when it did not, and nothing was
 * written. Concurrent creates of one tenant and environment share a statement (group commit):
 * under load a statement per lead was most of the API's and PostgreSQL's work (`npm run bench`,
 * T2), and a statement for many costs little more than one. Each create still gets its own lead,
 * audit entry and answer; an idle API writes each create at once, alone. When a group's statement
 * fails, each of its creates is written alone, so one bad lead fails only its own request.
 *
 * A scope has one such statement in flight at a time per process, however many creates wait
 * (two gave no more throughput in `npm run bench:ab`); the creates that arrive meanwhile go
 * together in the next. That one connection bounds the tenant's share of the pool here, so while
 * no other tenant is active a create gives its request's fair-share slot back before it joins
 * (`beforeGroupWait`): the tenant's next requests reach the group instead of waiting for a slot
 * held by a create that holds no connection. While another tenant is active the slot stays, and
 * the shrunk share keeps the tenant from taking the API's CPU from the other one.
 */
export async function insertLead(ctx: DomainContext, row: NewLeadRow, mustBeDefault: boolean): Promise<InsertedLead | null> {
  return groups.add({ ctx, row, mustBeDefault });
}

/** The queued creates of a scope, a statement for each actor and status (what a statement shares), one after the other. */
async function writeGroups(creates: Create[]): Promise<Settled<InsertedLead | null>[]> {
  const byKey = new Map<string, number[]>();
  creates.forEach(({ ctx, row, mustBeDefault }, i) => {
    const key = [ctx.actorUserId, row.status, mustBeDefault].join('\u0000');
    byKey.set(key, [...(byKey.get(key) ?? []), i]);
  });
  const results: Settled<InsertedLead | null>[] = new Array(creates.length);
  for (const indexes of byKey.values()) {
    const settled = await togetherOrEachAlone(
      indexes.map((i) => creates[i]),
      writeTogether,
    );
    indexes.forEach((index, j) => (results[index] = settled[j]));
  }
  return results;
}

async function writeTogether(group: Create[]): Promise<(InsertedLead | null)[]> {
  leadCreateGroupSize.observe(group.length);
  const [{ ctx, row, mustBeDefault }] = group;
  const claims = group.map((c) => PendingAudit.claim(c.ctx));
  const audits = claims.flatMap((claim, i) => (claim ? [{ claim, row: claim.row(encodeId('lead', group[i].row.id)) }] : []));
  // The audit IDs come back in the order of the rows given (the statement's identity order).
  const settle = (stored: string[]) => audits.forEach(({ claim, row }, i) => claim.done(writtenAudit(row, stored[i])));
  let written;
  try {
    written = await writeLeads(
      ctx,
      group.map((c) => c.row),
      { hintedDefault: mustBeDefault ? row.status : undefined, audits: audits.map((a) => a.row) },
    );
  } catch (err) {
    settle([]);
    throw err;
  }
  settle(written?.auditIds ?? []);
  if (!written) return group.map(() => null);
  const { leads, events, pending } = written;
  const byId = new Map(leads.map((lead) => [lead.id, lead]));
  return group.map((c, i) => ({ lead: byId.get(c.row.id) as Lead, events: i ? [] : events, pending: i ? null : pending }));
}
