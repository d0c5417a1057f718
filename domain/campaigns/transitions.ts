import { toFieldErrors } from '../../lib/zod-errors';
import { SequenceDefinition as DefinitionSchema } from '../../contracts/sequence-definition';
import { Campaign, CampaignEnrollment, type Operation, SequenceDefinition } from '../../db/entities';
import type { CampaignStatus } from '../../db/entities/campaign';
import type { OperationType } from '../../db/entities/operation';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { campaignTransitionWorkflow, type EnrollmentSignal } from '../../workflows/campaign-transition';
import { workflowIds } from '../../workflows/ids';
import type { DomainContext } from '../context';
import { createOperation, markOperationFailed } from '../operations';
import { unitOfWork, type UnitOfWork } from '../unit-of-work';

/** Legal moves (docs/decisions.md, "Campaigns"): draft -> active, active <-> paused, active | paused -> completed. */
const TRANSITIONS: Record<CampaignStatus, CampaignStatus[]> = {
  draft: ['active'],
  active: ['paused', 'completed'],
  paused: ['active', 'completed'],
  completed: [],
};

/** What a move hands to the enrollments: a signal each, sent by a workflow after the answer. */
const FAN_OUT: Partial<Record<CampaignStatus, { signal: EnrollmentSignal; type: OperationType }>> = {
  paused: { signal: 'pause', type: 'campaign.pause' },
  completed: { signal: 'stop', type: 'campaign.complete' },
};

export interface CampaignTransition {
  campaign: Campaign;
  /** The fan-out to the enrollments (absent on activation: a new campaign has none). */
  operation?: Operation;
}

/**
 * Locks the campaign row, checks the move, applies `change` (which may return how many enrollments
 * it changed) and, for a move the enrollments must hear about, records an operation in the same
 * transaction; after commit a workflow signals the enrollments, so the request does a fixed amount
 * of work however many there are (docs/decisions.md, "Campaigns": pause, resume, complete).
 */
async function move(
  ctx: DomainContext,
  id: string,
  to: CampaignStatus,
  change?: (c: Campaign, tx: UnitOfWork) => Promise<number | void>,
): Promise<CampaignTransition> {
  const { campaign, operation, signal } = await unitOfWork(ctx, async (tx) => {
    const campaign = await tx.repo(Campaign).select('c').andWhere('c.id = :id', { id }).setLock('pessimistic_write').getOne();
    if (!campaign) throw notFound('Campaign');
    const from = campaign.status;
    if (!TRANSITIONS[from].includes(to)) throw new AppError('conflict', `A ${from} campaign cannot become ${to}`);
    const changed = await change?.(campaign, tx);
    campaign.status = to;
    const saved = await tx.repo(Campaign).save(campaign);
    const fanOut = from === 'paused' && to === 'active' ? { signal: 'resume' as const, type: 'campaign.resume' as const } : FAN_OUT[to];
    if (!fanOut) return { campaign: saved, operation: undefined, signal: undefined };
    const total = typeof changed === 'number' ? changed : await tx.repo(CampaignEnrollment).count({ campaignId: id, status: 'active' });
    const row = await createOperation(tx, {
      type: fanOut.type,
      resourceId: id,
      total,
      workflowIdOf: (operationId) => workflowIds.campaignTransition(encodeId('campaign', id), encodeId('operation', operationId)),
    });
    return { campaign: saved, operation: row, signal: fanOut.signal };
  });
  if (!operation || !signal) return { campaign };
  try {
    await ctx.workflows.start(campaignTransitionWorkflow, {
      workflowId: operation.workflowId,
      args: [{ ...ctx.scope, operationId: operation.id, campaignId: id, signal }],
      searchAttributes: {
        tenantId: encodeId('tenant', ctx.scope.tenantId),
        environment: ctx.scope.environment,
        campaignId: encodeId('campaign', id),
      },
      memo: { summary: `${operation.type} of campaign "${campaign.name}" (${operation.total} enrollments)` },
    });
  } catch (err) {
    // The campaign's new status holds (every enrollment re-reads it before each send); the
    // operation says its signals were not sent.
    await markOperationFailed(ctx, operation.id);
    throw err;
  }
  return { campaign, operation };
}

/**
 * Pins the definition's current version. The stored definition is validated again (it may predate
 * today's rules): an invalid one is a 422 with its errors, a missing one a 409.
 */
export function activateCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  return move(ctx, id, 'active', async (campaign) => {
    if (!campaign.workflowDefinitionId) throw new AppError('conflict', 'A campaign needs a workflowId before it can be activated');
    const definition = await ctx.data.repo(SequenceDefinition).findById(campaign.workflowDefinitionId);
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

export function pauseCampaign(ctx: DomainContext, id: string): Promise<CampaignTransition> {
  return move(ctx, id, 'paused');
}

export function resumeCampaign(ctx: DomainContext, id: string): Promise<CampaignTransition> {
  return move(ctx, id, 'active', async (c) => {
    if (c.status !== 'paused') throw new AppError('conflict', `A ${c.status} campaign cannot be resumed`);
  });
}

/**
 * Ends every enrollment: recorded as stopped at once (one statement, each with its
 * `campaign.enrollment.completed` event), and each workflow is told to stop.
 */
export function completeCampaign(ctx: DomainContext, id: string): Promise<CampaignTransition> {
  return move(ctx, id, 'completed', async (c, tx) => {
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
    return stopped.length;
  });
}

/** PATCH {status}: the same moves as the action endpoints (the campaign is answered; its operation runs on). */
export async function transitionCampaign(ctx: DomainContext, id: string, to: CampaignStatus): Promise<Campaign> {
  if (to === 'paused') return (await pauseCampaign(ctx, id)).campaign;
  if (to === 'completed') return (await completeCampaign(ctx, id)).campaign;
  if (to === 'draft') throw new AppError('conflict', 'A campaign cannot go back to draft');
  return (await getStatus(ctx, id)) === 'paused' ? (await resumeCampaign(ctx, id)).campaign : activateCampaign(ctx, id);
}

async function getStatus(ctx: DomainContext, id: string): Promise<CampaignStatus> {
  const c = await ctx.data.repo(Campaign).findById(id);
  if (!c) throw notFound('Campaign');
  return c.status;
}
