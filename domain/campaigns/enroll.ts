import { In } from 'typeorm';
import { Campaign, CampaignEnrollment, Lead } from '../../db/entities';
import { AppError, notFound } from '../../lib/errors';
import { decodeId } from '../../lib/ids';
import { forEachConcurrently } from '../../lib/concurrency';
import { logger } from '../../lib/logger';
import { stopSignal } from '../../workflows/campaign-signals';
import { suppressionsOf } from '../communications/email-suppressions';
import type { DomainContext } from '../context';
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
    const enrollment = inserted.get(lead.id);
    return enrollment ? [{ lead, enrollment }] : [];
  });
  await startAll(ctx, campaign, graph, started);
  return results;
}

/**
 * One INSERT for the whole batch; a lead already enrolled (the unique campaign+lead index) is
 * skipped by ON CONFLICT and missing from the result.
 */
async function insertEnrollments(ctx: DomainContext, campaign: Campaign, leads: Lead[]): Promise<Map<string, CampaignEnrollment>> {
  if (leads.length === 0) return new Map();
  const rows = await ctx.data.repo(CampaignEnrollment).insertIgnoringConflicts(
    leads.map((lead) => ({
      campaignId: campaign.id,
      leadId: lead.id,
      workflowId: enrollmentWorkflowId(campaign.id, lead.id),
      workflowVersion: campaign.workflowVersion ?? 0,
      status: 'active' as const,
    })),
  );
  return new Map(rows.map((e) => [e.leadId, e]));
}

/** Starts in flight at once for one request: a bulk enrollment is not one start after another. */
const START_CONCURRENCY = 16;

async function startAll(
  ctx: DomainContext,
  campaign: Campaign,
  graph: Awaited<ReturnType<typeof pinnedGraph>>,
  items: { lead: Lead; enrollment: CampaignEnrollment }[],
) {
  const failed: CampaignEnrollment[] = [];
  await forEachConcurrently(items, START_CONCURRENCY, async (item) => {
    try {
      await startEnrollmentWorkflow(ctx.workflows, ctx.scope, campaign, item.lead, item.enrollment, graph);
    } catch (err) {
      logger.warn({ err, workflowId: item.enrollment.workflowId }, 'could not start enrollment workflow');
      failed.push(item.enrollment);
    }
  });
  if (failed.length) {
    await ctx.data.repo(CampaignEnrollment).deleteWhere({ id: In(failed.map((e) => e.id)) });
    throw new AppError(
      'service_unavailable',
      `${failed.length} lead(s) could not be enrolled (workflow engine unavailable); retry the request`,
    );
  }
}

/** Removes a lead from the campaign: recorded as unenrolled, and its workflow told to stop. */
export async function unenrollLead(ctx: DomainContext, campaignId: string, leadId: string): Promise<CampaignEnrollment> {
  await getCampaign(ctx, campaignId);
  const repo = ctx.data.repo(CampaignEnrollment);
  const enrollment = await repo.findOne({ campaignId, leadId });
  if (!enrollment) throw notFound('Enrollment');
  if (enrollment.status === 'active') {
    Object.assign(enrollment, { status: 'unenrolled', exitReason: 'unenrolled', finishedAt: new Date() });
    await repo.save(enrollment);
    await signalWorkflows(ctx.workflows.client, [enrollment.workflowId], stopSignal, { reason: 'unenrolled' });
  }
  return enrollment;
}
