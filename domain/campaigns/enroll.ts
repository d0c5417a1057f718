import { In } from 'typeorm';
import { Campaign, CampaignEnrollment, Lead, OutboxEvent } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { AppError, notFound } from '../../lib/errors';
import { decodeId } from '../../lib/ids';
import { forEachConcurrently } from '../../lib/concurrency';
import { logger } from '../../lib/logger';
import { stopSignal } from '../../workflows/campaign-signals';
import { suppressionsOf } from '../communications/email-suppressions';
import type { DomainContext } from '../context';
import { relayCommitted, UnitOfWork, unitOfWork } from '../unit-of-work';
import { getCampaign } from './campaigns';
import { signalWorkflows } from './signal-enrollments';
import { enrollmentWorkflowId, pinnedGraph, startEnrollmentWorkflow } from './start-enrollment';

export type EnrollmentOutcome = 'enrolled' | 'already_enrolled' | 'not_found' | 'unsubscribed';

/**
 * Enrolls leads (given as public IDs) into an active or paused campaign. Each lead gets one row and
 * one workflow; a lead already enrolled (even one that finished) is reported, not restarted. When
 * Temporal refuses a start, the rows that did not start are removed and the call is a 503, so a
 * retry of the same request enrolls exactly the rest.
 */
export async function enrollLeads(
  ctx: DomainContext,
  campaignId: string,
  publicLeadIds: string[],
): Promise<{ leadId: string; status: EnrollmentOutcome }[]> {
  const campaign = await getCampaign(ctx, campaignId);
  if (campaign.status !== 'active' && campaign.status !== 'paused') {
    throw new AppError('conflict', `Leads can only be enrolled into an active or paused campaign (this one is ${campaign.status})`);
  }
  const graph = await pinnedGraph(ctx, campaign);
  const unique = [...new Set(publicLeadIds)];
  const keys = unique.map((id) => decodeId('lead', id));
  const found = await ctx.data.repo(Lead).find({ where: { id: In(keys.filter((k): k is string => k !== null)) } });
  const leads = new Map(found.map((l) => [l.id, l]));
  // An address that unsubscribed on any lead record counts as this lead's unsubscribe.
  const suppressed = await suppressionsOf(
    ctx.data,
    found.map((l) => l.email),
  );
  const optedOut = (lead: Lead) => lead.unsubscribedAt !== null || suppressed.get(lead.emailNormalized) === 'unsubscribed';
  // In the request's order, so enrollments are numbered (and listed) as asked.
  const eligible = keys.flatMap((k) => {
    const lead = k ? leads.get(k) : undefined;
    return lead && !optedOut(lead) ? [lead] : [];
  });
  const inserted = await insertEnrollments(ctx, campaign, eligible);
  const results = unique.map((publicId, i): { leadId: string; status: EnrollmentOutcome } => {
    const lead = keys[i] ? leads.get(keys[i]) : undefined;
    if (!lead) return { leadId: publicId, status: 'not_found' };
    if (optedOut(lead)) return { leadId: publicId, status: 'unsubscribed' };
    return { leadId: publicId, status: inserted.has(lead.id) ? 'enrolled' : 'already_enrolled' };
  });
  const started = eligible.flatMap((lead) => {
    const row = inserted.get(lead.id);
    return row ? [{ lead, ...row }] : [];
  });
  await startAll(ctx, campaign, graph, started);
  return results;
}

interface Inserted {
  enrollment: CampaignEnrollment;
  /** Its `campaign.enrollment.started` event (null: nobody subscribes): committed with the row, relayed once the workflow started. */
  event: OutboxEvent | null;
}

/**
 * One INSERT for the whole batch, with each new enrollment's started event in the same
 * transaction; a lead already enrolled (the unique campaign+lead index) is skipped by ON CONFLICT
 * and missing from the result. The events are not relayed here: startAll relays those whose
 * workflow started and removes the others with their rows.
 */
async function insertEnrollments(ctx: DomainContext, campaign: Campaign, leads: Lead[]): Promise<Map<string, Inserted>> {
  if (leads.length === 0) return new Map();
  return ctx.db.transaction(async (manager) => {
    const tx = new UnitOfWork(manager, ctx.scope);
    const rows = await tx.repo(CampaignEnrollment).insertIgnoringConflicts(
      leads.map((lead) => ({
        campaignId: campaign.id,
        leadId: lead.id,
        workflowId: enrollmentWorkflowId(campaign.id, lead.id),
        workflowVersion: campaign.workflowVersion ?? 0,
        status: 'active' as const,
      })),
    );
    const inserted = new Map<string, Inserted>();
    for (const enrollment of rows)
      inserted.set(enrollment.leadId, { enrollment, event: await tx.emit('campaign.enrollment.started', enrollment) });
    return inserted;
  });
}

/** Starts in flight at once for one request: a bulk enrollment is not one start after another. */
const START_CONCURRENCY = 16;

async function startAll(
  ctx: DomainContext,
  campaign: Campaign,
  graph: Awaited<ReturnType<typeof pinnedGraph>>,
  items: ({ lead: Lead } & Inserted)[],
) {
  const failed: Inserted[] = [];
  await forEachConcurrently(items, START_CONCURRENCY, async (item) => {
    try {
      await startEnrollmentWorkflow(ctx.workflows, ctx.scope, campaign, item.lead, item.enrollment, graph);
    } catch (err) {
      logger.warn({ err, workflowId: item.enrollment.workflowId }, 'could not start enrollment workflow');
      failed.push(item);
    }
  });
  // An enrollment whose workflow never started did not happen: its row and its event go together.
  if (failed.length) {
    await ctx.db.transaction(async (manager) => {
      const tx = new ScopedData(manager, ctx.scope);
      await tx.repo(CampaignEnrollment).deleteWhere({ id: In(failed.map((f) => f.enrollment.id)) });
      const events = failed.flatMap((f) => (f.event ? [f.event.id] : []));
      if (events.length) await tx.repo(OutboxEvent).deleteWhere({ id: In(events) });
    });
  }
  const failedSet = new Set(failed);
  relayCommitted(
    ctx,
    items.flatMap((i) => (i.event && !failedSet.has(i) ? [i.event] : [])),
  );
  if (failed.length) {
    throw new AppError(
      'service_unavailable',
      `${failed.length} lead(s) could not be enrolled (workflow engine unavailable); retry the request`,
    );
  }
}

/**
 * Removes a lead from the campaign: recorded as unenrolled with its `campaign.enrollment.completed`
 * event, and its workflow told to stop. Only an active row changes, so an enrollment that ended on
 * its own meanwhile keeps its status and is not reported twice.
 */
export async function unenrollLead(ctx: DomainContext, campaignId: string, leadId: string): Promise<CampaignEnrollment> {
  await getCampaign(ctx, campaignId);
  const enrollment = await ctx.data.repo(CampaignEnrollment).findOne({ campaignId, leadId });
  if (!enrollment) throw notFound('Enrollment');
  if (enrollment.status !== 'active') return enrollment;
  const ended = { status: 'unenrolled' as const, exitReason: 'unenrolled', finishedAt: new Date() };
  const changed = await unitOfWork(ctx, async (tx) => {
    const n = await tx.repo(CampaignEnrollment).updateWhere({ id: enrollment.id, status: 'active' }, ended);
    if (n) await tx.emit('campaign.enrollment.completed', { ...enrollment, ...ended });
    return n > 0;
  });
  if (changed) await signalWorkflows(ctx.workflows.client, [enrollment.workflowId], stopSignal, { reason: 'unenrolled' });
  return (await ctx.data.repo(CampaignEnrollment).findById(enrollment.id)) ?? enrollment;
}
