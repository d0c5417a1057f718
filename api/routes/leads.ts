import { z } from 'zod';
import { mergeLeads } from '../../domain/leads/merge';
import { createLead, deleteLead, getLead, listDuplicates, listLeads, updateLead } from '../../domain/leads/leads';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeLead } from '../serializers/lead';
import {
  customFieldFilters,
  Lead,
  LeadCreate,
  LeadDuplicate,
  LeadIdParams,
  LeadListQuery,
  LeadMerge,
  LeadUpdate,
} from '../../contracts/lead';

export function leadRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/leads',
      summary: 'Create a lead',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:write',
      body: LeadCreate,
      response: Lead,
      handler: async ({ body, ctx }) => ({
        data: serializeLead(await createLead(ctx, body)),
        message: 'Lead created',
      }),
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/leads',
      summary: 'List leads (also filter by custom fields: ?customFields.<key>=<value>)',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      query: LeadListQuery,
      response: z.array(Lead),
      message: 'Leads retrieved',
      serialize: serializeLead,
      handler: ({ query, req, ctx }) =>
        listLeads(ctx, { ...query, customFields: customFieldFilters(req.query as Record<string, unknown>) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/leads/:id',
      summary: 'Get a lead',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      params: LeadIdParams,
      response: Lead,
      handler: async ({ params, ctx }) => ({
        data: serializeLead(await getLead(ctx, params.id)),
        message: 'Lead retrieved',
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/leads/:id',
      summary: 'Update a lead',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:write',
      params: LeadIdParams,
      body: LeadUpdate,
      response: Lead,
      handler: async ({ params, body, ctx }) => ({
        data: serializeLead(await updateLead(ctx, params.id, body)),
        message: 'Lead updated',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/leads/:id',
      summary: 'Delete a lead',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:write',
      params: LeadIdParams,
      response: Lead,
      handler: async ({ params, ctx }) => ({
        data: serializeLead(await deleteLead(ctx, params.id)),
        message: 'Lead deleted',
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/leads/:id/duplicates',
      summary: 'List leads detected as duplicates of this lead (same normalised email or phone)',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      params: LeadIdParams,
      response: z.array(LeadDuplicate),
      handler: async ({ params, ctx }) => {
        const dupes = await listDuplicates(ctx, params.id);
        return {
          data: dupes.map((d) => ({ lead: serializeLead(d.lead), reasons: d.reasons as ('email' | 'phone')[] })),
          message: 'Duplicates retrieved',
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/leads/:id/merge',
      summary: 'Merge a duplicate into this lead: its tasks, opportunities, files and events move here, then it is deleted',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:write',
      params: LeadIdParams,
      body: LeadMerge,
      response: Lead,
      status: 200,
      handler: async ({ params, body, ctx }) => ({
        data: serializeLead(await mergeLeads(ctx, params.id, body.duplicateId)),
        message: 'Leads merged',
      }),
    }),
  ];
}
