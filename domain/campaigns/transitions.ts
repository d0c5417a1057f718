import { toFieldErrors } from '../../api/http/zod-errors';
import { WorkflowDefinition as DefinitionSchema } from '../../api/schemas/workflow-definition';
import { Campaign, CampaignEnrollment, WorkflowDefinition } from '../../db/entities';
import type { CampaignStatus } from '../../db/entities/campaign';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { pauseSignal, resumeSignal, stopSignal } from '../../workflows/campaign-signals';
import type { DomainContext } from '../context';
import { signalWorkflows } from './signal-enrollments';
import { unitOfWork, type UnitOfWork } from '../unit-of-work';

/** Legal moves (DESIGN 7): draft -> active, active <-> paused, active | paused -> completed. */
const TRANSITIONS: Record<CampaignStatus, CampaignStatus[]> = {
  draft: ['active'],
  active: ['paused', 'completed'],
  paused: ['active', 'completed'],
  completed: [],
};

/** Locks the campaign row, checks the move and applies `change`; signals are sent after commit. */
async function move(ctx: DomainContext, id: string, to: CampaignStatus, change?: (c: Campaign, tx: UnitOfWork) => Promise<void>) {
  return unitOfWork(ctx, async (tx) => {
    const campaign = await tx.repo(Campaign).select('c').andWhere('c.id = :id', { id }).setLock('pessimistic_write').getOne();
    if (!campaign) throw notFound('Campaign');
    const from = campaign.status;
    if (!TRANSITIONS[from].includes(to)) throw new AppError('conflict', `A ${from} campaign cannot become ${to}`);
    const active = await tx.repo(CampaignEnrollment).find({ where: { campaignId: id, status: 'active' } });
    await change?.(campaign, tx);
    campaign.status = to;
    const saved = await tx.repo(Campaign).save(campaign);
    return { campaign: saved, from, workflowIds: active.map((e) => e.workflowId) };
  });
}

/**
 * Pins the definition's current version. The stored definition is validated again (it may predate
 * today's rules): an invalid one is a 422 with its errors, a missing one a 409.
 */
export function activateCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  return move(ctx, id, 'active', async (campaign) => {
    if (!campaign.workflowDefinitionId) throw new AppError('conflict', 'A campaign needs a workflowId before it can be activated');
    const definition = await ctx.data.repo(WorkflowDefinition).findById(campaign.workflowDefinitionId);
    if (!definition) throw new AppError('conflict', 'The campaign workflow no longer exists');
    const parsed = DefinitionSchema.safeParse({
      name: definition.name,
      description: definition.description,
      nodes: definition.nodes,
      edges: definition.edges,
    });
    if (!parsed.success) throw validationFailed(toFieldErrors(parsed.error));
    const trigger = parsed.data.nodes.find((n) => n.type === 'trigger');
    campaign.workflowVersion = definition.version;
    campaign.triggerType = trigger?.type === 'trigger' ? trigger.data.triggerType : null;
    campaign.activatedAt = new Date();
  }).then((r) => r.campaign);
}

export async function pauseCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  const { campaign, workflowIds } = await move(ctx, id, 'paused');
  await signalWorkflows(ctx.workflows.client, workflowIds, pauseSignal);
  return campaign;
}

export async function resumeCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  const { campaign, workflowIds } = await move(ctx, id, 'active', async (c) => {
    if (c.status !== 'paused') throw new AppError('conflict', `A ${c.status} campaign cannot be resumed`);
  });
  await signalWorkflows(ctx.workflows.client, workflowIds, resumeSignal);
  return campaign;
}

/**
 * Ends every enrollment: recorded as stopped at once (each with its `campaign.enrollment.completed`
 * event), and each workflow is told to stop.
 */
export async function completeCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  const { campaign, workflowIds } = await move(ctx, id, 'completed', async (c, tx) => {
    c.completedAt = new Date();
    const stopped = await tx.sql<{ id: string; lead_id: string }>(
      (
        q,
      ) => `UPDATE ${q.table(CampaignEnrollment)} SET status = 'stopped', exit_reason = 'campaign_completed', finished_at = now(), updated_at = now()
        WHERE ${q.scope()} AND campaign_id = ${q.value(c.id)}::bigint AND status = 'active' RETURNING id::text, lead_id::text`,
    );
    for (const e of stopped)
      await tx.emit('campaign.enrollment.completed', {
        id: e.id,
        campaignId: c.id,
        leadId: e.lead_id,
        status: 'stopped',
        exitReason: 'campaign_completed',
      });
  });
  await signalWorkflows(ctx.workflows.client, workflowIds, stopSignal, { reason: 'campaign_completed' });
  return campaign;
}

/** PATCH {status}: the same moves as the action endpoints. */
export function transitionCampaign(ctx: DomainContext, id: string, to: CampaignStatus): Promise<Campaign> {
  if (to === 'paused') return pauseCampaign(ctx, id);
  if (to === 'completed') return completeCampaign(ctx, id);
  if (to === 'draft') throw new AppError('conflict', 'A campaign cannot go back to draft');
  return getStatus(ctx, id).then((s) => (s === 'paused' ? resumeCampaign(ctx, id) : activateCampaign(ctx, id)));
}

async function getStatus(ctx: DomainContext, id: string): Promise<CampaignStatus> {
  const c = await ctx.data.repo(Campaign).findById(id);
  if (!c) throw notFound('Campaign');
  return c.status;
}
