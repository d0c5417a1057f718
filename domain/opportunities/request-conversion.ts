import { Lead, Opportunity } from '../../db/entities';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { workflowIds } from '../../workflows/ids';
import { leadConversionWorkflow } from '../../workflows/lead-conversion';
import type { ConvertLead } from '../../contracts/opportunity';
import type { DomainContext } from '../context';
import { resultWithin, WaitTimeout } from '../workflow-result';

const AWAIT_MS = 30_000;

/**
 * POST /v1/opportunities/convert: runs `lead-conversion/<leadId>` and waits for it. When another
 * request's run is already open for this lead, that one wins and this one answers 409 with the
 * opportunity it created; a lead converted earlier also gets 409 with its opportunity.
 */
export async function requestConversion(ctx: DomainContext, input: ConvertLead): Promise<string> {
  if (!(await ctx.data.repo(Lead).findById(input.leadId))) throw notFound('Lead');
  // A client retrying a conversion that succeeded gets its answer from one read, not a workflow
  // run: under load a run that only finds the opportunity took 12-18 s (schemathesis's HAR files).
  // The workflow decides when this finds nothing, so two requests racing still serialize there.
  const converted = await ctx.data.repo(Opportunity).findOne({ leadId: input.leadId, convertedFromLead: true });
  if (converted) throw conflict(converted.id);
  const leadId = encodeId('lead', input.leadId);
  const workflowId = workflowIds.leadConversion(leadId);
  const { started } = await ctx.workflows.start(leadConversionWorkflow, {
    workflowId,
    args: [
      {
        ...ctx.scope,
        leadId: input.leadId,
        actorUserId: ctx.actorUserId,
        value: input.value,
        currency: input.currency,
        stageId: input.stageId,
        name: input.name,
      },
    ],
    searchAttributes: { tenantId: encodeId('tenant', ctx.scope.tenantId), environment: ctx.scope.environment, leadId },
    memo: { summary: `Convert lead ${leadId} into an opportunity` },
    onConflict: 'fail',
  });
  const result = await resultWithin<Awaited<ReturnType<typeof leadConversionWorkflow>>>(ctx, workflowId, AWAIT_MS).catch((err) => {
    throw err instanceof WaitTimeout
      ? new AppError('service_unavailable', 'Conversion is taking longer than expected; retry shortly')
      : err;
  });
  switch (result.outcome) {
    case 'lead_not_found':
      throw notFound('Lead');
    case 'stage_not_found':
      throw validationFailed([{ field: 'stageId', message: 'Opportunity stage not found' }]);
    case 'already_converted':
      throw conflict(result.opportunityId);
    case 'created':
      if (!started) throw conflict(result.opportunityId);
      return result.opportunityId;
  }
}

const conflict = (opportunityId: string) =>
  new AppError('conflict', 'Lead has already been converted', undefined, undefined, {
    opportunityId: encodeId('opportunity', opportunityId),
  });
