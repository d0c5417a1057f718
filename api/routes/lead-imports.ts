import { Readable } from 'node:stream';
import { z } from 'zod';
import { createLeadImport, getLeadImport, importFailuresInOrder, listImportFailures, listLeadImports } from '../../domain/leads/imports';
import { LeadImport, LeadImportCreate, LeadImportFailure, LeadImportIdParams, LeadImportListQuery } from '../../contracts/lead-import';
import { csvLine, spreadsheetText } from '../../lib/csv';
import { encodeId } from '../../lib/ids';
import type { LeadImport as LeadImportEntity } from '../../db/entities';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { sendCsv } from '../http/send-csv';
import { serializeImportFailure, serializeLeadImport } from '../serializers/lead-import';

/**
 * The columns after line and reason in the failures file: a CSV import's own header, so the rows
 * can be fixed in a spreadsheet and the file imported again with the same mapping; an NDJSON
 * record (or the text of a line that was not JSON) as JSON in one column.
 */
function failureColumns(header: string[] | null) {
  if (!header) return { names: ['values'], values: (raw: Record<string, unknown>) => [JSON.stringify(raw)] };
  return { names: header, values: (raw: Record<string, unknown>) => header.map((name) => raw[name]) };
}

/** Bulk import of an uploaded CSV or NDJSON file into leads (docs/decisions.md, "Bulk lead import"). */
export function leadImportRoutes(deps: AppDeps) {
  const read = { tag: 'Lead imports', auth: 'tenant', scope: 'leads:read' } as const;
  return [
    defineRoute({
      method: 'post',
      path: '/v1/leads/imports',
      summary:
        'Import an uploaded CSV (header row) or NDJSON file into leads: 202, then poll the import; 422 when a mapped column is not in the header or the header is over 1 MB or 1,000 columns, 409 when 3 imports already run; rows over 1 MB fail',
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
      summary:
        "Download an import's failed rows as CSV: line and reason, then a CSV import's own columns (fix the rows and import the file again) or an NDJSON record as JSON",
      params: LeadImportIdParams,
      response: z.object({ id: z.string(), rows: z.custom<Readable>() }),
      handler: async ({ params, ctx }) => {
        const imp = await getLeadImport(ctx, params.id);
        const columns = failureColumns(imp.header);
        async function* lines() {
          yield csvLine(['line', 'reason', ...columns.names]);
          for await (const f of importFailuresInOrder(ctx, imp.id)) {
            yield csvLine([f.line, f.reason, ...columns.values(f.raw).map(spreadsheetText)]);
          }
        }
        return { data: { id: encodeId('leadImport', imp.id), rows: Readable.from(lines()) } };
      },
      send: (res, { id, rows }) => sendCsv(res, `${id}-failures.csv`, rows),
    }),
  ];
}
