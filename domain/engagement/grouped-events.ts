import type { EngagementEvent } from '../../db/entities';
import { togetherOrEachAlone, type Settled } from '../../lib/group-commit';
import { engagementEventGroupSize } from '../../lib/metrics';
import type { DomainContext } from '../context';
import { PendingAudit } from '../pending-audit';
import { ScopeGroupCommit } from '../scope-group-commit';
import { relayCommitted } from '../unit-of-work';
import {
  applyEngagements,
  recordEngagements,
  withLead,
  writeEngagements,
  type EngagementInput,
  type WrittenEngagements,
} from './record-engagement';

interface Ingested {
  ctx: DomainContext;
  input: EngagementInput & { id: string };
  checkLeads: boolean;
}

type Written = WrittenEngagements['written'][number];

const groups = new ScopeGroupCommit<Ingested, Written>(writeGroup, 100);

/**
 * An event of the API, recorded as recordEngagements does (with `checkLeads` when the caller named
 * its lead: null, with nothing written, when the lead is not the scope's). Concurrent events of a
 * tenant and environment share a statement, as lead creates do (grouped-creates.ts): under load a
 * statement per event cost the API a round trip and PostgreSQL a statement each, beside the
 * Temporal signal the event is for (`npm run bench`, T5-signal). Each event keeps its own audit
 * entry, lead check and signals; an event whose lead is not the scope's writes nothing and leaves
 * the others written; when a group's statement fails, each of its events is written alone. A
 * bounce goes alone, since it stops enrollments before the others are looked up.
 */
export async function recordIngestedEngagement(
  ctx: DomainContext,
  input: EngagementInput & { id: string },
  checkLeads: boolean,
): Promise<EngagementEvent | null> {
  if (input.type === 'email_bounce') {
    const [event] = await recordEngagements(ctx, ctx.scope, [input], { checkLeads });
    return event ?? null;
  }
  // A statement checks every lead of its group or none: events that name their lead group apart.
  const written = await groups.add({ ctx, input, checkLeads }, String(checkLeads));
  if (!written) return null;
  await applyEngagements(ctx, ctx.scope, [input], [written.targets]);
  return written.event;
}

async function writeGroup(items: Ingested[]): Promise<Settled<Written>[]> {
  return togetherOrEachAlone(items, async (group) => {
    engagementEventGroupSize.observe(group.length);
    const [{ ctx, checkLeads }] = group;
    const { written, relay } = await writeEngagements(
      ctx.db,
      ctx.data,
      group.map((item) => ({ input: withLead(item.input), audit: PendingAudit.claim(item.ctx) })),
      { checkLeads, lookUpTargets: true },
    );
    relayCommitted(ctx, relay);
    return written;
  });
}
