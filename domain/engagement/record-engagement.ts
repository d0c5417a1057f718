import type { DataSource } from 'typeorm';
import { AuditLog, CampaignEnrollment, EngagementEvent, Lead, Message, OutboxEvent } from '../../db/entities';
import type { EngagementType } from '../../db/entities/engagement-event';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { engagementSignal, type EngagementKind } from '../../workflows/campaign-signals';
import { applySuppression, type SuppressionDeps } from '../communications/apply-suppression';
import { signalWorkflows } from '../campaigns/signal-enrollments';
import { relayCommitted, type UnitOfWork } from '../unit-of-work';
import { PendingAudit, writtenAudit, type AuditClaim } from '../pending-audit';
import { subscribedSql } from '../webhooks/emit-event';
import type { RelayedEvent } from '../webhooks/relay';
import { reserveIds } from '../../db/id-blocks';
import { encodeId } from '../../lib/ids';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import { eventPayloads, type CatalogEventType } from '../../contracts/webhook-events';
import type { DomainContext } from '../context';

export interface EngagementInput {
  /** An ID reserved ahead (nextIdSql); otherwise the table's sequence gives one. */
  id?: string;
  type: EngagementType;
  /** Database keys, already checked to belong to the scope (or null). */
  leadId: string | null;
  message: Message | null;
  workflowExecutionId: string | null;
  occurredAt: Date;
  machine: boolean;
  details?: Record<string, unknown>;
}

/** `beforeLongWait`: the caller's, called once the database work is done and only signals are left. */
export type EngagementDeps = SuppressionDeps & Pick<DomainContext, 'beforeLongWait' | 'audit'>;

/** One engagement event; see recordEngagements. */
export async function recordEngagement(deps: EngagementDeps, scope: TenantScope, input: EngagementInput): Promise<EngagementEvent> {
  const [event] = await recordEngagements(deps, scope, [input]);
  return event;
}

/**
 * Stores engagement events, applies what they imply (a bounce marks the lead bounced, suppresses
 * its address and stops the address's enrollments) and signals the enrollments each concerns: the
 * one named by workflowExecutionId, else the message's campaign enrollment, else every active
 * enrollment of the lead, in both cases only while it waits on an engagement condition. Machine
 * events are stored, not signalled.
 *
 * The events, their webhooks, the request's audit entry and (without a bounce, which must stop
 * enrollments first) the enrollments to signal are one statement, which also checks a lead the
 * caller named (checkLeads): an event of the API costs one round trip before its signal instead of
 * six. With checkLeads, an event whose lead is not the scope's is not written (nor its webhook or
 * audit entry) and is left out of the result.
 */
export async function recordEngagements(
  deps: EngagementDeps,
  scope: TenantScope,
  inputs: EngagementInput[],
  opts: WriteOptions = {},
): Promise<EngagementEvent[]> {
  if (!inputs.length) return [];
  const data = new ScopedData(deps.db.manager, scope);
  const resolved = withLeads(inputs);
  const claim = PendingAudit.claim({ audit: deps.audit, scope });
  // A bounce stops enrollments (applyBounce) before the others are looked up to signal.
  const bounced = resolved.some((input) => input.type === 'email_bounce');
  const { written, relay } = await writeEngagements(
    deps.db,
    data,
    resolved.map((input, i) => ({ input, audit: i === 0 ? claim : null })),
    { ...opts, lookUpTargets: !bounced },
  );
  relayCommitted(deps, relay);
  const kept = resolved.flatMap((input, i) => (written[i] ? [{ input, ...written[i] }] : []));
  await applyEngagements(
    deps,
    scope,
    kept.map((k) => k.input),
    kept.map((k) => k.targets),
  );
  return kept.map((k) => k.event);
}

/**
 * Stores engagement events and their webhooks in the caller's unit of work (relayed after its
 * commit), for a caller whose own change must commit with them; once it has, the caller applies
 * them with applyEngagements.
 */
export async function writeEngagementsIn(deps: EngagementDeps, tx: UnitOfWork, inputs: EngagementInput[]): Promise<EngagementEvent[]> {
  const { written, relay } = await writeEngagements(
    deps.db,
    tx,
    withLeads(inputs).map((input) => ({ input, audit: null })),
  );
  tx.events.push(...relay);
  return written.flatMap((w) => (w ? [w.event] : []));
}

/**
 * What stored events imply, once committed: bounces are applied, then the enrollments concerned
 * are signalled (`targets[i]`: the ones the write found for `inputs[i]`; looked up now where it
 * looked up none). Running it again for the same events (a retried activity) changes nothing
 * more: the suppression and the leads' `bouncedAt` are set once, a stopped enrollment stays
 * stopped, and a repeated signal carries what the first did (type, message, time), which a
 * condition the first met reads the same.
 */
export async function applyEngagements(
  deps: EngagementDeps,
  scope: TenantScope,
  inputs: EngagementInput[],
  targets: (string[] | null)[] = [],
): Promise<void> {
  const data = new ScopedData(deps.db.manager, scope);
  const resolved = withLeads(inputs);
  for (const input of resolved.filter((i) => i.type === 'email_bounce')) await applyBounce(deps, data, input);
  const signalled = resolved.flatMap((input, i) => (isSignalled(input) ? [{ input, found: targets[i] ?? null }] : []));
  const unknown = signalled.filter((s) => !s.found);
  if (unknown.length) {
    const looked = await enrollmentTargets(
      data,
      unknown.map((s) => s.input),
    );
    unknown.forEach((s, i) => (s.found = looked[i]));
  }
  // A signal waits on Temporal, not on the database: the tenant's next request need not wait for it.
  if (signalled.some((s) => s.found?.length)) deps.beforeLongWait?.();
  for (const { input, found } of signalled) {
    await signalWorkflows(deps.workflows.client, found ?? [], engagementSignal, {
      type: input.type as EngagementKind,
      ...(input.message ? { messageId: input.message.id } : {}),
      at: input.occurredAt.toISOString(),
    });
  }
}

/** The lead an event concerns: the one given, else its message's. */
export const withLead = (input: EngagementInput): EngagementInput => ({ ...input, leadId: input.leadId ?? input.message?.leadId ?? null });
const withLeads = (inputs: EngagementInput[]) => inputs.map(withLead);

/** Whether enrollments hear of the event: people's, and neither unsubscribes nor delivery notices. */
const isSignalled = (input: EngagementInput) => !input.machine && input.type !== 'unsubscribe' && input.type !== 'email_delivered';

export interface WriteOptions {
  /**
   * Write each event only if its lead is the scope's: the statement checks them, and does not write
   * an event whose lead is not (nor its webhook or audit entry).
   */
  checkLeads?: boolean;
}

/** An event to store, with the audit entry of the request it is written for (null: none). */
export interface EventToWrite {
  input: EngagementInput;
  audit: AuditClaim | null;
}

export interface WrittenEngagements {
  /**
   * Per event, in order: the stored event and, with `lookUpTargets`, the enrollments to signal (else
   * null). Null where `checkLeads` found its lead not the scope's, and nothing of it was written.
   */
  written: ({ event: EngagementEvent; targets: string[] | null } | null)[];
  /** The webhooks written, to relay once committed. */
  relay: RelayedEvent[];
}

/**
 * One statement: the events, the webhooks of people's email engagements, the audit entries claimed
 * for them (each one's resource its event: the IDs are reserved first) and, with `lookUpTargets`,
 * the enrollments to signal. Each claim ends here: done with its stored entry, or with null when
 * its event was not written or the statement failed.
 */
export async function writeEngagements(
  db: DataSource,
  data: ScopedData,
  events: EventToWrite[],
  opts: WriteOptions & { lookUpTargets?: boolean } = {},
): Promise<WrittenEngagements> {
  const audits = events.flatMap((e) => (e.audit ? [e.audit] : []));
  try {
    return await writeStatement(db, data, events, opts);
  } catch (err) {
    for (const claim of audits) claim.done(null);
    throw err;
  }
}

async function writeStatement(
  db: DataSource,
  data: ScopedData,
  events: EventToWrite[],
  opts: WriteOptions & { lookUpTargets?: boolean },
): Promise<WrittenEngagements> {
  const inputs = events.map((e) => e.input);
  const ids = await eventIds(db, inputs, !!opts.checkLeads || events.some((e) => e.audit));
  const rows = inputs.map((input, i) => ({
    ...(ids ? { id: ids[i] } : {}),
    type: input.type,
    leadId: input.leadId,
    messageId: input.message?.id ?? null,
    campaignId: input.message?.campaignId ?? null,
    workflowExecutionId: input.workflowExecutionId,
    occurredAt: input.occurredAt,
    machine: input.machine,
    details: input.details ?? {},
  }));
  const webhooks = rows.flatMap((row, i) => {
    const event = integrationEvent(row);
    return event ? [{ row: event, eventId: ids?.[i] }] : [];
  });
  const audits = events.flatMap((e, i) =>
    e.audit && ids ? [{ claim: e.audit, eventId: ids[i], row: e.audit.row(encodeId('engagementEvent', ids[i])) }] : [],
  );
  const targeted = opts.lookUpTargets ? inputs.filter(isSignalled) : [];
  const lookup = targetLookup(targeted);
  const result = await data.sql((q) => {
    // With checkLeads a webhook or audit entry is written only with its event (u.event_id), which
    // is not written when its lead is not the scope's. (Built only then: q.from adds the scope's
    // parameters, which a statement must use.)
    const leadOfScope = () => `u.lead_id IS NULL OR EXISTS (SELECT 1 FROM ${q.from(Lead, 'l')} WHERE l.id = u.lead_id)`;
    const withItsEvent = (eventIds: (string | undefined)[], where?: string) => {
      if (!opts.checkLeads) return where ? { where } : {};
      const written = 'EXISTS (SELECT 1 FROM ev WHERE ev.id = u.event_id)';
      return { where: where ? `(${where}) AND ${written}` : written, keys: { event_id: { values: eventIds, type: 'bigint' } } };
    };
    const parts = [`ev AS (${q.insertMany(EngagementEvent, rows, {}, opts.checkLeads ? { where: leadOfScope() } : {})} RETURNING *)`];
    if (webhooks.length) {
      const subscribed = withItsEvent(
        webhooks.map((w) => w.eventId),
        subscribedSql(q, { typeSql: 'u.type' }),
      );
      parts.push(
        `out AS (${q.insertMany(
          OutboxEvent,
          webhooks.map((w) => w.row),
          {},
          subscribed,
        )} RETURNING id, type)`,
      );
    }
    if (audits.length) {
      const entries = audits.map((a) => a.row);
      parts.push(`audit AS (${q.insertMany(AuditLog, entries, {}, withItsEvent(audits.map((a) => a.eventId)))} RETURNING id)`);
    }
    if (lookup.named.length) parts.push(`named AS (${activeEnrollmentsSql(q, 'workflow_id', lookup.named)})`);
    if (lookup.leads.length) parts.push(`of_leads AS (${activeEnrollmentsSql(q, 'lead_id', lookup.leads)})`);
    const agg = (cte: string) => `(SELECT coalesce(json_agg(t), '[]') FROM ${cte} t)`;
    return `WITH ${parts.join(',\n')}
      SELECT ev.*,
        ${webhooks.length ? `(SELECT coalesce(json_agg(json_build_object('id', id::text, 'type', type)), '[]') FROM out)` : `'[]'::json`} AS relay,
        ${audits.length ? '(SELECT array_agg(id::text ORDER BY id) FROM audit)' : 'NULL'} AS audit_ids,
        ${lookup.named.length ? agg('named') : `'[]'::json`} AS named, ${lookup.leads.length ? agg('of_leads') : `'[]'::json`} AS of_leads
      FROM ev ORDER BY ev.id`;
  });
  const stored = new Map(result.map((row) => [String(row.id), data.entity(EngagementEvent, row)]));
  const first = result[0] ?? { relay: [], audit_ids: null, named: [], of_leads: [] };
  // The entries come back in the order of their rows (the statement's identity order); a row
  // whose event was not written wrote no entry.
  const auditIds = [...((first.audit_ids as string[] | null) ?? [])];
  for (const { claim, eventId, row } of audits) claim.done(stored.has(eventId) ? writtenAudit(row, auditIds.shift()) : null);
  const named = first.named as EnrollmentRow[];
  const ofLeads = first.of_leads as EnrollmentRow[];
  return {
    written: inputs.map((input, i) => {
      const event = ids ? stored.get(ids[i]) : data.entity(EngagementEvent, result[i]);
      if (!event) return null;
      return { event, targets: opts.lookUpTargets ? (isSignalled(input) ? targetsOf(input, named, ofLeads) : []) : null };
    }),
    relay: (first.relay as { id: string; type: string }[]).map((e) =>
      // What the relay reads of an event it dispatches (RELAYED_FIELDS).
      data.entity<RelayedEvent>(OutboxEvent, {
        id: e.id,
        tenant_id: data.scope.tenantId,
        environment: data.scope.environment,
        type: e.type,
        target_endpoint_id: null,
      }),
    ),
  };
}

/**
 * The events' IDs, when they must be known before the write (an audit entry or a webhook
 * written only with its event names it): the ones given (nextId), else reserved now. Else null,
 * and the table's sequence gives them.
 */
async function eventIds(db: DataSource, inputs: EngagementInput[], needed: boolean): Promise<string[] | null> {
  const given = inputs.flatMap((input) => (input.id ? [input.id] : []));
  if (given.length === inputs.length) return given;
  return needed ? reserveIds(db, EngagementEvent, inputs.length) : null;
}

/**
 * The webhook an email engagement becomes: people's hits only, since a scanner's or a
 * prefetching proxy's open is no signal an integration should act on. Written with the stored row,
 * so the event exists exactly when the engagement does.
 */
function integrationEvent(e: Pick<EngagementEvent, 'type' | 'leadId' | 'messageId' | 'campaignId' | 'occurredAt' | 'machine' | 'details'>) {
  if (e.machine || e.messageId === null) return null;
  const base = { messageId: e.messageId, leadId: e.leadId, campaignId: e.campaignId, occurredAt: e.occurredAt };
  const text = (key: string) => (typeof e.details[key] === 'string' ? (e.details[key] as string) : null);
  const event = (type: CatalogEventType, data: Record<string, unknown>) => ({ type, data, targetEndpointId: null });
  if (e.type === 'email_open') return event('email.opened', eventPayloads['email.opened'](base));
  if (e.type === 'link_click') return event('email.clicked', eventPayloads['email.clicked']({ ...base, url: text('url') }));
  if (e.type === 'email_bounce') return event('email.bounced', eventPayloads['email.bounced']({ ...base, reason: text('reason') }));
  if (e.type === 'email_delivered') return event('email.delivered', eventPayloads['email.delivered'](base));
  if (e.type === 'unsubscribe') return event('email.unsubscribed', eventPayloads['email.unsubscribed'](base));
  if (e.type === 'email_reply') return event('email.replied', eventPayloads['email.replied'](base));
  return null;
}

/**
 * A bounce marks the lead bounced and suppresses the address that bounced (the message's, else the
 * lead's) for every lead that has it or gets it later. Every bounce reported here counts as hard:
 * providers report soft bounces by retrying, not through this path.
 */
async function applyBounce(deps: SuppressionDeps, data: ScopedData, input: EngagementInput): Promise<void> {
  const { leadId } = input;
  const leads = data.repo(Lead);
  const address = input.message?.channel === 'email' ? input.message.to : leadId ? (await leads.findById(leadId))?.email : null;
  if (address) await applySuppression(deps, data.scope, { address, reason: 'bounced', at: input.occurredAt, leadId });
  else if (leadId) await leads.updateWhere({ id: leadId }, { bouncedAt: input.occurredAt });
}

type EnrollmentRow = { workflow_id: string; lead_id: string; campaign_id: string; signal_type: EngagementType | null };

/** What to look up for the inputs: the workflows they name, else their leads' enrollments. */
function targetLookup(inputs: EngagementInput[]) {
  return {
    // Only a workflow that is an enrollment of this tenant: an ID is never signalled blindly.
    named: inputs.flatMap((i) => (i.workflowExecutionId ? [i.workflowExecutionId] : [])),
    leads: [...new Set(inputs.flatMap((i) => (!i.workflowExecutionId && i.leadId ? [i.leadId] : [])))],
  };
}

/** The workflow IDs an input concerns, among the active enrollments found for the lookup. */
function targetsOf(input: EngagementInput, named: EnrollmentRow[], ofLeads: EnrollmentRow[]): string[] {
  if (input.workflowExecutionId) return named.filter((e) => e.workflow_id === input.workflowExecutionId).map((e) => e.workflow_id);
  const campaignId = input.message?.campaignId;
  return ofLeads
    .filter((e) => e.lead_id === input.leadId && (!campaignId || e.campaign_id === campaignId) && waitsFor(e, input.type))
    .map((e) => e.workflow_id);
}

/**
 * Whether an enrollment found by its lead waits for this type of event: an open does not decide a
 * condition waiting for a click, so it would cost Temporal a workflow task for nothing. A window
 * opened before the type was recorded takes every type.
 */
const waitsFor = (e: EnrollmentRow, type: EngagementType) => e.signal_type === null || e.signal_type === type;

/** The active enrollments each input concerns, with two queries for the whole batch (after a bounce has stopped some). */
async function enrollmentTargets(data: ScopedData, inputs: EngagementInput[]): Promise<string[][]> {
  const { named, leads } = targetLookup(inputs);
  const query = (by: 'workflow_id' | 'lead_id', values: string[]) =>
    values.length ? data.sql<EnrollmentRow>((q) => activeEnrollmentsSql(q, by, values)) : Promise.resolve([]);
  const [ofNamed, ofLeads] = [await query('workflow_id', named), await query('lead_id', leads)];
  return inputs.map((input) => targetsOf(input, ofNamed, ofLeads));
}

/**
 * The active enrollments by lead or workflow ID. By lead, only those waiting on an engagement
 * condition (engagement-window.ts), with the type it waits for (waitsFor): the others would spend
 * a Temporal workflow task on a signal nothing reads. An event naming its workflow is signalled
 * whatever that workflow waits for.
 */
export function activeEnrollmentsSql(q: ScopedSqlBuilder, by: 'workflow_id' | 'lead_id', values: string[]): string {
  const type = by === 'lead_id' ? 'bigint' : 'text';
  const matching = (
    value: string,
  ) => `SELECT workflow_id, lead_id::text, campaign_id::text, ${q.col(CampaignEnrollment, 'engagementSignalType')} AS signal_type
      FROM ${q.table(CampaignEnrollment)}
      WHERE ${q.scope()} AND status = 'active' AND ${by} = ${value}
      ${by === 'lead_id' ? `AND ${q.col(CampaignEnrollment, 'engagementSignalsUntil')} > now()` : ''}`;
  if (values.length === 1) return matching(`${q.value(values[0])}::${type}`);
  // One index search per value, each with its value in the index condition. A prepared
  // statement's generic plan of `= ANY($n)`, or of a join with the unnested values, read every
  // enrollment of the scope through the index's scope columns (the enrollment-lookup-plan test):
  // the fence (OFFSET 0) keeps the planner from flattening the per-value search into such a join.
  return `SELECT e.* FROM unnest(${q.value(values)}::${type}[]) AS v(value)
      CROSS JOIN LATERAL (${matching('v.value')} OFFSET 0) e`;
}
