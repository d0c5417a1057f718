import { z } from 'zod';
import { mergeLeads } from '../../domain/leads/merge';
import { createLead, deleteLead, getLead, listDuplicates, listLeads, updateLead } from '../../domain/leads/leads';
import { createLeadBatch, type BatchItemResult } from '../../domain/leads/batch';
import type { FieldError } from '../../lib/errors';
import { findUnstorableText } from '../../lib/unstorable-text';
import { toFieldErrors } from '../../lib/zod-errors';
import { defineListRoute, defineRoute, pageOfList } from '../http/route';
import { PaginationQuery } from '../../contracts/common';
import { serializeLead } from '../serializers/lead';
import {
  customFieldFilters,
  Lead,
  LeadCreate,
  LeadBatchCreate,
  LeadBatchItemResult,
  LeadDuplicate,
  LeadDuplicatesMeta,
  LeadIdParams,
  LeadListQuery,
  LeadMerge,
  LeadUpdate,
} from '../../contracts/lead';

type Duplicate = Awaited<ReturnType<typeof listDuplicates>>['duplicates'][number];

/** One item of a batch, validated as the body of POST /v1/leads would be (text PostgreSQL cannot store included). */
function batchItem(item: unknown): { input: LeadCreate } | { errors: FieldError[] } {
  const unstorable = findUnstorableText(item);
  if (unstorable) return { errors: [unstorable] };
  const result = LeadCreate.safeParse(item);
  return result.success ? { input: result.data } : { errors: toFieldErrors(result.error) };
}

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
    defineRoute({
      method: 'post',
      path: '/v1/leads/batch',
      auditResource: 'leads',
      summary: 'Create up to 100 leads at once: 200 with a result per item, in request order (an invalid item fails alone)',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:write',
      body: LeadBatchCreate,
      response: z.array(LeadBatchItemResult),
      status: 200,
      itemsCheckedByHandler: true,
      handler: async ({ body, ctx }) => {
        const parsed = body.leads.map((item, index) => ({ index, ...batchItem(item) }));
        const valid = parsed.flatMap((p) => ('input' in p ? [{ index: p.index, input: p.input }] : []));
        const created = new Map((await createLeadBatch(ctx, valid)).map((r) => [r.index, r]));
        return {
          data: parsed.map((p) =>
            'input' in p ? (created.get(p.index) as BatchItemResult) : { index: p.index, status: 'error' as const, errors: p.errors },
          ),
          message: 'Batch processed',
        };
      },
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/leads',
      summary: 'List leads (also filter by custom fields: ?customFields.<key>=<value>)',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      query: LeadListQuery,
      queryPrefixes: ['customFields.'],
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
    defineListRoute({
      method: 'get',
      path: '/v1/leads/:id/duplicates',
      summary: 'List leads detected as duplicates of this lead (same normalised email or phone)',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      params: LeadIdParams,
      query: PaginationQuery,
      response: z.array(LeadDuplicate),
      meta: LeadDuplicatesMeta,
      message: 'Duplicates retrieved',
      serialize: (d: Duplicate) => ({ lead: serializeLead(d.lead), reasons: d.reasons }),
      handler: async ({ params, query, ctx }) => {
        const { duplicates, commonKeys } = await listDuplicates(ctx, params.id);
        return { ...pageOfList(duplicates, query), meta: { commonKeys } };
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
