import { CampaignEnrollment, EngagementEvent, Lead, Message, OutboxEvent } from '../../db/entities';
import type { EngagementType } from '../../db/entities/engagement-event';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { engagementSignal, type EngagementKind } from '../../workflows/campaign-signals';
import { applySuppression, type SuppressionDeps } from '../communications/apply-suppression';
import { signalWorkflows } from '../campaigns/signal-enrollments';
import { relayCommitted, type UnitOfWork } from '../unit-of-work';
import { auditInsertSql, auditPendingFor, writeWithAudit } from '../pending-audit';
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
type EngagementDeps = SuppressionDeps & Pick<DomainContext, 'beforeLongWait' | 'audit'>;

/** One engagement event; see recordEngagements. */
export async function recordEngagement(deps: EngagementDeps, scope: TenantScope, input: EngagementInput): Promise<EngagementEvent> {
  const [event] = await recordEngagements(deps, scope, [input]);
  return event;
}

/**
 * One engagement event whose lead the caller named but did not look up: written only if the lead
 * is the scope's, checked by the statement that writes it (one round trip fewer per event than a
 * lookup first). Null, with nothing written, when it is not.
 */
export async function recordEngagementOfNamedLead(
  deps: EngagementDeps,
  scope: TenantScope,
  input: EngagementInput & { leadId: string },
): Promise<EngagementEvent | null> {
  const [event] = await recordEngagements(deps, scope, [input], { checkLeads: true });
  return event ?? null;
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
 * caller named (checkLeads): an event of the API costs one round trip before its signal instead of six.
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
  const bounced = resolved.some((input) => input.type === 'email_bounce');
  const written = await writeEngagements(deps, data, resolved, bounced ? [] : signalledOf(resolved), opts);
  if (!written) return [];
  relayCommitted(deps, written.relay);
  await applyEngagements(deps, scope, resolved, written.targets);
  return written.events;
}

/**
 * Stores engagement events and their webhooks in the caller's unit of work (relayed after its
 * commit), for a caller whose own change must commit with them; once it has, the caller applies
 * them with applyEngagements.
 */
export async function writeEngagementsIn(deps: EngagementDeps, tx: UnitOfWork, inputs: EngagementInput[]): Promise<EngagementEvent[]> {
  const written = await writeEngagements(deps, tx, withLeads(inputs), []);
  if (!written) return [];
  tx.events.push(...written.relay);
  return written.events;
}

/**
 * What stored events imply, once committed: bounces are applied, then the enrollments concerned
 * are signalled (`targets`: found by the write, else looked up now). Running it again for the same
 * events (a retried activity) changes nothing more: the suppression and the leads' `bouncedAt`
 * are set once, a stopped enrollment stays stopped, and a repeated signal carries what the first
 * did (type, message, time), which a condition the first met reads the same.
 */
export async function applyEngagements(
  deps: EngagementDeps,
  scope: TenantScope,
  inputs: EngagementInput[],
  targets: string[][] | null = null,
): Promise<void> {
  const data = new ScopedData(deps.db.manager, scope);
  const resolved = withLeads(inputs);
  for (const input of resolved.filter((i) => i.type === 'email_bounce')) await applyBounce(deps, data, input);
  const signalled = signalledOf(resolved);
  if (!signalled.length) return;
  const found = targets ?? (await enrollmentTargets(data, signalled));
  // A signal waits on Temporal, not on the database: the tenant's next request need not wait for it.
  if (found.some((t) => t.length)) deps.beforeLongWait?.();
  for (const [i, input] of signalled.entries()) {
    await signalWorkflows(deps.workflows.client, found[i], engagementSignal, {
      type: input.type as EngagementKind,
      ...(input.message ? { messageId: input.message.id } : {}),
      at: input.occurredAt.toISOString(),
    });
  }
}

/** The lead an event concerns: the one given, else its message's. */
const withLeads = (inputs: EngagementInput[]) =>
  inputs.map((input) => ({ ...input, leadId: input.leadId ?? input.message?.leadId ?? null }));

/** The events enrollments hear of: people's, and neither unsubscribes nor delivery notices. */
const signalledOf = (inputs: EngagementInput[]) =>
  inputs.filter((input) => !input.machine && input.type !== 'unsubscribe' && input.type !== 'email_delivered');

interface WriteOptions {
  /**
   * Write the events only if their leads are the scope's: the statement checks them, and writes
   * nothing (no event, webhook or audit entry; null) when one is not. For one event.
   */
  checkLeads?: boolean;
}

/**
 * One statement: the events, the webhooks of people's email engagements, the request's audit entry
 * (its resource the event, when there is one: its ID is reserved first) and, for `targeted`, the
 * enrollments to signal (null when none were asked for). Null when `checkLeads` found a lead that
 * is not the scope's, and nothing was written.
 */
async function writeEngagements(
  deps: EngagementDeps,
  data: ScopedData,
  inputs: EngagementInput[],
  targeted: EngagementInput[],
  opts: WriteOptions = {},
) {
  const given = inputs.flatMap((input) => (input.id ? [input.id] : []));
  const audit = { audit: deps.audit, scope: data.scope };
  const ids =
    given.length === inputs.length
      ? given
      : inputs.length === 1 && auditPendingFor(audit)
        ? await reserveIds(deps.db, EngagementEvent, 1)
        : null;
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
  const webhooks = rows.flatMap((row) => integrationEvent(row) ?? []);
  const lookup = targetLookup(targeted);
  const resourceId = ids ? encodeId('engagementEvent', ids[0]) : null;
  return writeWithAudit(audit, resourceId, async (auditRow) => {
    const result = await data.sql((q) => {
      // With checkLeads the rest is written only with the event: `ev` is empty when its lead is not the scope's.
      // (Built only then: q.from adds the scope's parameters, which a statement must use.)
      const leadOfScope = () => `u.lead_id IS NULL OR EXISTS (SELECT 1 FROM ${q.from(Lead, 'l')} WHERE l.id = u.lead_id)`;
      const withEvent = (where?: string) => {
        const conditions = [where && `(${where})`, opts.checkLeads && 'EXISTS (SELECT 1 FROM ev)'].filter(Boolean);
        return conditions.length ? { where: conditions.join(' AND ') } : {};
      };
      const parts = [`ev AS (${q.insertMany(EngagementEvent, rows, {}, opts.checkLeads ? { where: leadOfScope() } : {})} RETURNING *)`];
      if (webhooks.length)
        parts.push(
          `out AS (${q.insertMany(OutboxEvent, webhooks, {}, withEvent(subscribedSql(q, { typeSql: 'u.type' })))} RETURNING id, type)`,
        );
      if (auditRow) parts.push(`audit AS (${auditInsertSql(q, auditRow, withEvent())} RETURNING id)`);
      if (lookup.named.length) parts.push(`named AS (${activeEnrollmentsSql(q, 'workflow_id', lookup.named)})`);
      if (lookup.leads.length) parts.push(`of_leads AS (${activeEnrollmentsSql(q, 'lead_id', lookup.leads)})`);
      const agg = (cte: string) => `(SELECT coalesce(json_agg(t), '[]') FROM ${cte} t)`;
      return `WITH ${parts.join(',\n')}
        SELECT ev.*,
          ${webhooks.length ? `(SELECT coalesce(json_agg(json_build_object('id', id::text, 'type', type)), '[]') FROM out)` : `'[]'::json`} AS relay,
          ${auditRow ? '(SELECT id::text FROM audit)' : 'NULL'} AS audit_id,
          ${lookup.named.length ? agg('named') : `'[]'::json`} AS named, ${lookup.leads.length ? agg('of_leads') : `'[]'::json`} AS of_leads
        FROM ev ORDER BY ev.id`;
    });
    const [first] = result;
    if (!first) return { result: null, auditId: null };
    const relay = (first.relay as { id: string; type: string }[]).map((e) =>
      // What the relay reads of an event it dispatches (RELAYED_FIELDS).
      data.entity<RelayedEvent>(OutboxEvent, {
        id: e.id,
        tenant_id: data.scope.tenantId,
        environment: data.scope.environment,
        type: e.type,
        target_endpoint_id: null,
      }),
    );
    return {
      result: {
        events: result.map((row) => data.entity(EngagementEvent, row)),
        relay,
        targets: targeted.length ? assignTargets(targeted, first.named as EnrollmentRow[], first.of_leads as EnrollmentRow[]) : null,
      },
      auditId: (first.audit_id as string | null) ?? null,
    };
  });
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

/** The workflow IDs each input concerns, among the active enrollments found for the lookup. */
function assignTargets(inputs: EngagementInput[], named: EnrollmentRow[], ofLeads: EnrollmentRow[]): string[][] {
  return inputs.map((input) => {
    if (input.workflowExecutionId) return named.filter((e) => e.workflow_id === input.workflowExecutionId).map((e) => e.workflow_id);
    const campaignId = input.message?.campaignId;
    return ofLeads
      .filter((e) => e.lead_id === input.leadId && (!campaignId || e.campaign_id === campaignId) && waitsFor(e, input.type))
      .map((e) => e.workflow_id);
  });
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
  return assignTargets(inputs, await query('workflow_id', named), await query('lead_id', leads));
}

/**
 * `column` is one of `values`: one value is an equality, since a prepared statement's generic plan
 * prices `= ANY` of an unknown array as several index searches, and then walked the scope's index
 * for an event naming its workflow, every enrollment of the tenant (the enrollment-lookup-plan test).
 */
function matchesAny(q: ScopedSqlBuilder, column: 'workflow_id' | 'lead_id', values: string[]): string {
  const type = column === 'lead_id' ? 'bigint' : 'text';
  return values.length === 1 ? `${column} = ${q.value(values[0])}::${type}` : `${column} = ANY(${q.value(values)}::${type}[])`;
}

/**
 * The active enrollments by lead or workflow ID. By lead, only those waiting on an engagement
 * condition (engagement-window.ts), with the type it waits for (waitsFor): the others would spend
 * a Temporal workflow task on a signal nothing reads. An event naming its workflow is signalled
 * whatever that workflow waits for.
 */
export function activeEnrollmentsSql(q: ScopedSqlBuilder, by: 'workflow_id' | 'lead_id', values: string[]): string {
  return `SELECT workflow_id, lead_id::text, campaign_id::text, ${q.col(CampaignEnrollment, 'engagementSignalType')} AS signal_type
      FROM ${q.table(CampaignEnrollment)}
      WHERE ${q.scope()} AND status = 'active' AND ${matchesAny(q, by, values)}
      ${by === 'lead_id' ? `AND ${q.col(CampaignEnrollment, 'engagementSignalsUntil')} > now()` : ''}`;
}
