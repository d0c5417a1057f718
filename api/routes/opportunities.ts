import { z } from 'zod';
import {
  createOpportunity,
  deleteOpportunity,
  getOpportunity,
  listOpportunities,
  updateOpportunity,
} from '../../domain/opportunities/opportunities';
import { requestConversion } from '../../domain/opportunities/request-conversion';
import { defineListRoute, defineRoute } from '../http/route';
import {
  ConvertLead,
  Opportunity,
  OpportunityCreate,
  OpportunityIdParams,
  OpportunityListQuery,
  OpportunityUpdate,
} from '../../contracts/opportunity';
import { serializeOpportunity } from '../serializers/opportunity';

export function opportunityRoutes() {
  const base = { tag: 'Opportunities', auth: 'tenant' as const };
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/opportunities/convert',
      auditResource: 'opportunities',
      summary: 'Convert a lead into an opportunity (a second conversion of the lead is 409 with the existing opportunityId)',
      scope: 'opportunities:write',
      body: ConvertLead,
      response: Opportunity,
      handler: async ({ body, ctx }) => {
        const id = await requestConversion(ctx, body);
        return { data: serializeOpportunity(await getOpportunity(ctx, id)), message: 'Lead converted to an opportunity' };
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/opportunities',
      summary: 'Create an opportunity',
      scope: 'opportunities:write',
      body: OpportunityCreate,
      response: Opportunity,
      handler: async ({ body, ctx }) => ({
        data: serializeOpportunity(await createOpportunity(ctx, body)),
        message: 'Opportunity created',
      }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/opportunities',
      summary: 'List opportunities',
      scope: 'opportunities:read',
      query: OpportunityListQuery,
      response: z.array(Opportunity),
      message: 'Opportunities retrieved',
      serialize: serializeOpportunity,
      handler: ({ query, ctx }) => listOpportunities(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/opportunities/:id',
      summary: 'Get an opportunity',
      scope: 'opportunities:read',
      params: OpportunityIdParams,
      response: Opportunity,
      handler: async ({ params, ctx }) => ({
        data: serializeOpportunity(await getOpportunity(ctx, params.id)),
        message: 'Opportunity retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/opportunities/:id',
      summary:
        'Update an opportunity; a stage change emits opportunity.stage_changed and, for closed stages, opportunity.won or opportunity.lost',
      scope: 'opportunities:write',
      params: OpportunityIdParams,
      body: OpportunityUpdate,
      response: Opportunity,
      handler: async ({ params, body, ctx }) => ({
        data: serializeOpportunity(await updateOpportunity(ctx, params.id, body)),
        message: 'Opportunity updated',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/opportunities/:id',
      summary: 'Delete an opportunity',
      scope: 'opportunities:write',
      params: OpportunityIdParams,
      response: Opportunity,
      handler: async ({ params, ctx }) => ({
        data: serializeOpportunity(await deleteOpportunity(ctx, params.id)),
        message: 'Opportunity deleted',
      }),
    }),
  ];
}
