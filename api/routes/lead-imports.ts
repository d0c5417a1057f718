import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import { createLeadImport, getLeadImport, importFailuresInOrder, listImportFailures, listLeadImports } from '../../domain/leads/imports';
import { LeadImport, LeadImportCreate, LeadImportFailure, LeadImportIdParams, LeadImportListQuery } from '../../contracts/lead-import';
import { attachmentDisposition } from '../../lib/files/content-disposition';
import { encodeId } from '../../lib/ids';
import type { LeadImport as LeadImportEntity } from '../../db/entities';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeImportFailure, serializeLeadImport } from '../serializers/lead-import';

const csvField = (v: string | number) => `"${String(v).replace(/"/g, '""')}"`;

/** Bulk import of an uploaded CSV or NDJSON file into leads (docs/decisions.md, "Bulk lead import"). */
export function leadImportRoutes(deps: AppDeps) {
  const read = { tag: 'Lead imports', auth: 'tenant', scope: 'leads:read' } as const;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/leads/imports',
      summary:
        'Import an uploaded CSV (header row) or NDJSON file into leads: 202, then poll the import; 422 when a mapped column is not in the header, 409 when 3 imports already run',
      tag: 'Lead imports',
      auth: 'tenant',
      scope: 'leads:write',
      body: LeadImportCreate,
      response: LeadImport,
      status: 202,
      errors: [409],
      handler: async ({ body, ctx }) => ({
        data: serializeLeadImport(await createLeadImport(ctx, deps.files.storage, body)),
        message: 'Import started',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/leads/imports',
      summary: 'List lead imports, newest first',
      query: LeadImportListQuery,
      response: z.array(LeadImport),
      message: 'Imports retrieved',
      serialize: (i: LeadImportEntity) => serializeLeadImport(i),
      handler: ({ query, ctx }) => listLeadImports(ctx, query.page, query.limit),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/leads/imports/:id',
      summary: "Get an import's progress: rows read, created, updated, skipped, failed, rate and ETA",
      params: LeadImportIdParams,
      response: LeadImport,
      handler: async ({ params, ctx }) => ({
        data: serializeLeadImport(await getLeadImport(ctx, params.id)),
        message: 'Import retrieved',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/leads/imports/:id/failures',
      summary: "List an import's failed rows in file order, with their line numbers and reasons",
      params: LeadImportIdParams,
      query: LeadImportListQuery,
      response: z.array(LeadImportFailure),
      message: 'Failed rows retrieved',
      serialize: serializeImportFailure,
      handler: ({ params, query, ctx }) => listImportFailures(ctx, params.id, query.page, query.limit),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/leads/imports/:id/failures/download',
      summary: "Download an import's failed rows as CSV: line, reason and the row's values (JSON)",
      params: LeadImportIdParams,
      response: z.object({ id: z.string(), rows: z.custom<Readable>() }),
      handler: async ({ params, ctx }) => {
        const imp = await getLeadImport(ctx, params.id);
        async function* lines() {
          yield 'line,reason,values\r\n';
          for await (const f of importFailuresInOrder(ctx, imp.id)) {
            yield [f.line, csvField(f.reason), csvField(JSON.stringify(f.raw))].join(',') + '\r\n';
          }
        }
        return { data: { id: encodeId('leadImport', imp.id), rows: Readable.from(lines()) } };
      },
      send: async (res, { id, rows }) => {
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', attachmentDisposition(`${id}-failures.csv`));
        res.setHeader('X-Content-Type-Options', 'nosniff');
        await pipeline(rows, res);
      },
    }),
  ];
}
