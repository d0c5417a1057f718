import { Campaign, CampaignEnrollment, Lead, SequenceDefinitionVersion } from '../../db/entities';
import { type TenantScope } from '../../db/scoped-repository';
import { AppError } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { SequenceGraph } from '../../workflows/campaign-graph';
import { campaignSequenceWorkflow } from '../../workflows/campaign-sequence';
import { workflowIds } from '../../workflows/ids';
import type { DomainContext } from '../context';

export const enrollmentWorkflowId = (campaignId: string, leadId: string) =>
  workflowIds.campaignEnrollment(encodeId('campaign', campaignId), encodeId('lead', leadId));

/** The graph of the campaign's pinned version: what every enrollment of this campaign runs. */
export async function pinnedGraph(ctx: DomainContext, campaign: Campaign): Promise<SequenceGraph> {
  const version =
    campaign.workflowDefinitionId && campaign.workflowVersion
      ? await ctx.data.repo(SequenceDefinitionVersion).findOne({
          workflowDefinitionId: campaign.workflowDefinitionId,
          version: campaign.workflowVersion,
        })
      : null;
  if (!version) throw new AppError('conflict', 'The campaign has no pinned workflow version');
  return { nodes: version.nodes, edges: version.edges };
}

/** One workflow per campaign and lead, with the four search attributes (docs/decisions.md, "Sequence workflow"). */
export async function startEnrollmentWorkflow(
  workflows: WorkflowStarter,
  scope: TenantScope,
  campaign: Campaign,
  lead: Lead,
  enrollment: CampaignEnrollment,
  graph: SequenceGraph,
): Promise<void> {
  await workflows.start(campaignSequenceWorkflow, {
    workflowId: enrollment.workflowId,
    args: [
      {
        ...scope,
        campaignId: campaign.id,
        leadId: lead.id,
        enrollmentId: enrollment.id,
        graph,
        startPaused: campaign.status === 'paused',
      },
    ],
    searchAttributes: {
      tenantId: encodeId('tenant', scope.tenantId),
      environment: scope.environment,
      campaignId: encodeId('campaign', campaign.id),
      leadId: encodeId('lead', lead.id),
    },
    memo: { summary: `Campaign ${encodeId('campaign', campaign.id)} (v${campaign.workflowVersion}) for lead ${encodeId('lead', lead.id)}` },
  });
}
