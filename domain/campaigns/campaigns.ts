import type { CampaignCreate, CampaignUpdate } from '../../contracts/campaign';
import { Campaign, CampaignEnrollment, SequenceDefinition } from '../../db/entities';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import type { DomainContext } from '../context';
import { findForUpdate } from '../scoped-lookups';
import { activateCampaign, transitionCampaign } from './transitions';
import { unitOfWork, type UnitOfWork } from '../unit-of-work';

/**
 * Checks the workflow a campaign is about to name and holds it (FOR KEY SHARE) until the campaign's
 * write commits: a concurrent delete of the workflow waits, then finds the campaign and refuses.
 */
async function holdWorkflow(tx: UnitOfWork, workflowId: string) {
  if (!(await tx.repo(SequenceDefinition).findByIdForKeyShare(workflowId))) {
    throw validationFailed([{ field: 'workflowId', message: 'Workflow not found' }]);
  }
}

/** A campaign starts as a draft, or active when created with `status: active` (which activates it). */
export async function createCampaign(ctx: DomainContext, input: CampaignCreate): Promise<Campaign> {
  const campaign = await unitOfWork(ctx, async (tx) => {
    if (input.workflowId) await holdWorkflow(tx, input.workflowId);
    return tx.repo(Campaign).insert({
      name: input.name,
      description: input.description ?? '',
      type: input.type ?? 'email',
      status: 'draft',
      workflowDefinitionId: input.workflowId ?? null,
    });
  });
  return input.status === 'active' ? activateCampaign(ctx, campaign.id) : campaign;
}

export async function getCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  const campaign = await ctx.data.repo(Campaign).findById(id);
  if (!campaign) throw notFound('Campaign');
  return campaign;
}

export async function listCampaigns(ctx: DomainContext, f: { page: number; limit: number; status?: string[]; type?: string[] }) {
  const qb = ctx.data.repo(Campaign).select('c');
  if (f.status) qb.andWhere('c.status IN (:...status)', { status: f.status });
  if (f.type) qb.andWhere('c.type IN (:...type)', { type: f.type });
  const [rows, total] = await qb.orderBy('c.created_at', 'DESC').addOrderBy('c.id', 'DESC').page(f.page, f.limit);
  return { rows, total };
}

/** Fields change freely; the workflow only while draft (later it is pinned); `status` is a transition. */
export async function updateCampaign(ctx: DomainContext, id: string, patch: CampaignUpdate): Promise<Campaign> {
  const { status, workflowId, ...fields } = patch;
  const campaign = await unitOfWork(ctx, async (tx) => {
    const campaign = await findForUpdate(tx, Campaign, id, 'Campaign');
    if (workflowId !== undefined && workflowId !== campaign.workflowDefinitionId) {
      if (campaign.status !== 'draft') throw new AppError('conflict', 'The workflow of a campaign is pinned once it is activated');
      if (workflowId) await holdWorkflow(tx, workflowId);
      campaign.workflowDefinitionId = workflowId;
    }
    return tx.repo(Campaign).save(Object.assign(campaign, fields));
  });
  return status && status !== campaign.status ? transitionCampaign(ctx, id, status) : campaign;
}

/** Only drafts and completed campaigns can be deleted (running enrollments are completed first). */
export async function deleteCampaign(ctx: DomainContext, id: string): Promise<Campaign> {
  return unitOfWork(ctx, async (tx) => {
    const repo = tx.repo(Campaign);
    const campaign = await repo.findById(id);
    if (!campaign) throw notFound('Campaign');
    if (campaign.status === 'active' || campaign.status === 'paused') {
      throw new AppError('conflict', `Cannot delete a ${campaign.status} campaign; complete it first`);
    }
    await tx.repo(CampaignEnrollment).deleteWhere({ campaignId: id });
    await repo.deleteById(id);
    return campaign;
  });
}
