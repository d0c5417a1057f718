import { Readable } from 'node:stream';
import { z } from 'zod';
import { mergeLeads } from '../../domain/leads/merge';
import { createLead, deleteLead, getLead, leadsInOrder, listDuplicates, listLeads, updateLead } from '../../domain/leads/leads';
import { csvLine, spreadsheetText } from '../../lib/csv';
import { sendCsv } from '../http/send-csv';
import { createLeadBatch } from '../../domain/leads/batch';
import { updateLeadBatch } from '../../domain/leads/batch-update';
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
  LeadBatchUpdate,
  LeadBatchUpdateItem,
  LeadBatchUpdateResult,
  LeadDuplicate,
  LeadDuplicatesMeta,
  LeadExportQuery,
  LeadIdParams,
  LeadListQuery,
  LeadMerge,
  LeadUpdate,
} from '../../contracts/lead';

/** The export's columns: a lead as the API shows it, but its tenant, the same on every row. */
const LEAD_CSV_COLUMNS = [
  'id',
  'email',
  'firstName',
  'lastName',
  'phone',
  'source',
  'status',
  'score',
  'assignedTo',
  'partnerId',
  'unsubscribedAt',
  'bouncedAt',
  'createdAt',
  'updatedAt',
  'customFields',
] as const;

/** A lead's row of the export: text a spreadsheet could run is guarded (lib/csv.ts), custom fields are one JSON column. */
function leadCsvFields(lead: Lead): unknown[] {
  return LEAD_CSV_COLUMNS.map((column) => (column === 'customFields' ? JSON.stringify(lead.customFields) : spreadsheetText(lead[column])));
}

type Duplicate = Awaited<ReturnType<typeof listDuplicates>>['duplicates'][number];

/** One item of a batch, validated on its own as a single request's body would be (text PostgreSQL cannot store included). */
function batchItem<S extends z.ZodType>(schema: S, item: unknown): { input: z.output<S> } | { errors: FieldError[] } {
  const unstorable = findUnstorableText(item);
  if (unstorable) return { errors: [unstorable] };
  const result = schema.safeParse(item);
  return result.success ? { input: result.data } : { errors: toFieldErrors(result.error) };
}

type RefusedItem = { index: number; errors: FieldError[] };

/** A batch's answer, in request order: what `write` made of the valid items, and the refused items' errors. */
async function answerBatch<T extends { index: number }, R extends { index: number }>(
  items: (T | RefusedItem)[],
  write: (valid: T[]) => Promise<R[]>,
) {
  const refused = (i: T | RefusedItem): i is RefusedItem => 'errors' in i;
  const written = new Map((await write(items.filter((i): i is T => !refused(i)))).map((r) => [r.index, r]));
  return {
    data: items.map((i) => (refused(i) ? { index: i.index, status: 'error' as const, errors: i.errors } : (written.get(i.index) as R))),
    message: 'Batch processed',
  };
}

type BatchUpdateItem = { index: number; id: string; patch: LeadUpdate } | RefusedItem;

/** A batch update's items: each validated, and a lead named by an earlier item refused (one change per lead and batch). */
function batchUpdateItems(items: unknown[]): BatchUpdateItem[] {
  const firstIndex = new Map<string, number>();
  return items.map((item, index): BatchUpdateItem => {
    const parsed = batchItem(LeadBatchUpdateItem, item);
    if ('errors' in parsed) return { index, errors: parsed.errors };
    const { id, ...patch } = parsed.input;
    const earlier = firstIndex.get(id);
    if (earlier !== undefined)
      return {
        index,
        errors: [{ field: 'id', message: `Also item ${earlier} of this batch; send one change per lead, with all its fields` }],
      };
    firstIndex.set(id, index);
    return { index, id, patch };
  });
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
      handler: ({ body, ctx }) =>
        answerBatch(
          body.leads.map((item, index) => ({ index, ...batchItem(LeadCreate, item) })),
          (valid) => createLeadBatch(ctx, valid),
        ),
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
      path: '/v1/leads/export',
      summary:
        "Download as CSV every lead a list's filters select (the same filters as GET /v1/leads), oldest first: one row a lead, its custom fields as JSON in the last column",
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:read',
      query: LeadExportQuery,
      queryPrefixes: ['customFields.'],
      response: z.object({ filename: z.string(), rows: z.custom<Readable>() }),
      handler: async ({ query, req, ctx }) => {
        const leads = await leadsInOrder(ctx, { ...query, customFields: customFieldFilters(req.query as Record<string, unknown>) });
        async function* lines() {
          yield csvLine(LEAD_CSV_COLUMNS);
          for await (const lead of leads) yield csvLine(leadCsvFields(serializeLead(lead)));
        }
        const filename = `leads-${ctx.scope.environment}-${new Date().toISOString().slice(0, 10)}.csv`;
        return { data: { filename, rows: Readable.from(lines()) } };
      },
      send: (res, { filename, rows }) => sendCsv(res, filename, rows),
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
      path: '/v1/leads/batch',
      auditResource: 'leads',
      summary:
        'Update up to 100 leads at once, each as PATCH /v1/leads/{id} would: 200 with a result per item, in request order (a refused change fails alone)',
      tag: 'Leads',
      auth: 'tenant',
      scope: 'leads:write',
      body: LeadBatchUpdate,
      response: z.array(LeadBatchUpdateResult),
      status: 200,
      itemsCheckedByHandler: true,
      handler: ({ body, ctx }) => answerBatch(batchUpdateItems(body.leads), (valid) => updateLeadBatch(ctx, valid)),
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
