import { CampaignEnrollment, EngagementEvent, Lead, Message } from '../../db/entities';
import type { EngagementType } from '../../db/entities/engagement-event';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { engagementSignal, type EngagementKind } from '../../workflows/campaign-signals';
import { applySuppression, type SuppressionDeps } from '../communications/apply-suppression';
import { signalWorkflows } from '../campaigns/signal-enrollments';
import { unitOfWork, type UnitOfWork } from '../unit-of-work';
import type { DomainContext } from '../context';

export interface EngagementInput {
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
type EngagementDeps = SuppressionDeps & Pick<DomainContext, 'beforeLongWait'>;

/** One engagement event; see recordEngagements. */
export async function recordEngagement(deps: EngagementDeps, scope: TenantScope, input: EngagementInput): Promise<EngagementEvent> {
  const [event] = await recordEngagements(deps, scope, [input]);
  return event;
}

/**
 * Stores engagement events in one statement, applies what they imply (a bounce marks the lead
 * bounced, suppresses its address and stops the address's enrollments) and signals the enrollments
 * each concerns: the one named by workflowExecutionId, else the message's campaign enrollment, else
 * every active enrollment of the lead, in both cases only while it waits on an engagement condition.
 * Machine events are stored, not signalled.
 */
export async function recordEngagements(deps: EngagementDeps, scope: TenantScope, inputs: EngagementInput[]): Promise<EngagementEvent[]> {
  const data = new ScopedData(deps.db.manager, scope);
  const leadOf = (input: EngagementInput) => input.leadId ?? input.message?.leadId ?? null;
  const events = await unitOfWork({ ...deps, scope }, async (tx) => {
    const stored = await tx.repo(EngagementEvent).insertMany(
      inputs.map((input) => ({
        type: input.type,
        leadId: leadOf(input),
        messageId: input.message?.id ?? null,
        campaignId: input.message?.campaignId ?? null,
        workflowExecutionId: input.workflowExecutionId,
        occurredAt: input.occurredAt,
        machine: input.machine,
        details: input.details ?? {},
      })),
    );
    for (const event of stored) await emitIntegrationEvent(tx, event);
    return stored;
  });
  for (const input of inputs) {
    if (input.type === 'email_bounce') await applyBounce(deps, data, input, leadOf(input));
  }
  const signalled = inputs.filter((input) => !input.machine && input.type !== 'unsubscribe' && input.type !== 'email_delivered');
  if (signalled.length) {
    const targets = await enrollmentTargets(
      data,
      signalled.map((input) => ({ ...input, leadId: leadOf(input) })),
    );
    // A signal waits on Temporal, not on the database: the tenant's next request need not wait for it.
    if (targets.some((t) => t.length)) deps.beforeLongWait?.();
    for (const [i, input] of signalled.entries()) {
      await signalWorkflows(deps.workflows.client, targets[i], engagementSignal, {
        type: input.type as EngagementKind,
        ...(input.message ? { messageId: input.message.id } : {}),
        at: input.occurredAt.toISOString(),
      });
    }
  }
  return events;
}

/**
 * The webhook an email engagement becomes: people's hits only, since a scanner's or a
 * prefetching proxy's open is no signal an integration should act on. Written with the stored row,
 * so the event exists exactly when the engagement does.
 */
async function emitIntegrationEvent(tx: UnitOfWork, e: EngagementEvent): Promise<void> {
  if (e.machine || e.messageId === null) return;
  const base = { messageId: e.messageId, leadId: e.leadId, campaignId: e.campaignId, occurredAt: e.occurredAt };
  const text = (key: string) => (typeof e.details[key] === 'string' ? (e.details[key] as string) : null);
  if (e.type === 'email_open') await tx.emit('email.opened', base);
  else if (e.type === 'link_click') await tx.emit('email.clicked', { ...base, url: text('url') });
  else if (e.type === 'email_bounce') await tx.emit('email.bounced', { ...base, reason: text('reason') });
  else if (e.type === 'email_delivered') await tx.emit('email.delivered', base);
  else if (e.type === 'unsubscribe') await tx.emit('email.unsubscribed', base);
}

/**
 * A bounce marks the lead bounced and suppresses the address that bounced (the message's, else the
 * lead's) for every lead that has it or gets it later. Every bounce reported here counts as hard:
 * providers report soft bounces by retrying, not through this path.
 */
async function applyBounce(deps: SuppressionDeps, data: ScopedData, input: EngagementInput, leadId: string | null): Promise<void> {
  const leads = data.repo(Lead);
  const address = input.message?.channel === 'email' ? input.message.to : leadId ? (await leads.findById(leadId))?.email : null;
  if (address) await applySuppression(deps, data.scope, { address, reason: 'bounced', at: input.occurredAt, leadId });
  else if (leadId) await leads.updateWhere({ id: leadId }, { bouncedAt: input.occurredAt });
}

/** The active enrollments each input concerns, with two queries for the whole batch. */
async function enrollmentTargets(data: ScopedData, inputs: EngagementInput[]): Promise<string[][]> {
  // Only a workflow that is an enrollment of this tenant: an ID is never signalled blindly.
  const namedIds = inputs.flatMap((i) => (i.workflowExecutionId ? [i.workflowExecutionId] : []));
  const leadIds = inputs.flatMap((i) => (!i.workflowExecutionId && i.leadId ? [i.leadId] : []));
  const named = namedIds.length ? await activeEnrollments(data, 'workflow_id', namedIds) : [];
  const ofLeads = leadIds.length ? await activeEnrollments(data, 'lead_id', [...new Set(leadIds)]) : [];
  return inputs.map((input) => {
    if (input.workflowExecutionId) return named.filter((e) => e.workflowId === input.workflowExecutionId).map((e) => e.workflowId);
    const campaignId = input.message?.campaignId;
    return ofLeads.filter((e) => e.leadId === input.leadId && (!campaignId || e.campaignId === campaignId)).map((e) => e.workflowId);
  });
}

type EnrollmentTarget = Pick<CampaignEnrollment, 'workflowId' | 'leadId' | 'campaignId'>;

/**
 * A prepared statement (every analytics event and tracking batch asks): the active enrollments by
 * lead or workflow ID. By lead, only those waiting on an engagement condition (engagement-window.ts):
 * the others would spend a Temporal workflow task on a signal nothing reads. An event naming its
 * workflow is signalled whatever that workflow waits for.
 */
async function activeEnrollments(data: ScopedData, by: 'workflow_id' | 'lead_id', values: string[]): Promise<EnrollmentTarget[]> {
  const rows = await data.sql<{ workflow_id: string; lead_id: string; campaign_id: string }>(
    (q) => `SELECT workflow_id, lead_id::text, campaign_id::text FROM ${q.table(CampaignEnrollment)}
      WHERE ${q.scope()} AND status = 'active' AND ${by} = ANY(${q.value(values)}::${by === 'lead_id' ? 'bigint' : 'text'}[])
      ${by === 'lead_id' ? `AND ${q.col(CampaignEnrollment, 'engagementSignalsUntil')} > now()` : ''}`,
  );
  return rows.map((r) => ({ workflowId: r.workflow_id, leadId: r.lead_id, campaignId: r.campaign_id }));
}
