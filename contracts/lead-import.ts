import { z } from 'zod';
import { IMPORT_FORMATS, IMPORT_POLICIES, IMPORT_STATUSES } from '../db/entities/lead-import';
import { encodedId, PaginationQuery } from './common';

const column = z.string().min(1).max(200);

/** Lead fields (named as in POST /v1/leads) -> the CSV column or NDJSON key that holds them. */
export const LeadImportMapping = z
  .object({
    email: column,
    firstName: column,
    lastName: column,
    phone: column.optional(),
    status: column.optional(),
    score: column.optional(),
    assignedTo: column.optional().meta({
      description:
        "Its cells hold user IDs (usr...): the lead's assignee. Empty: the importing key's owner for a new lead, unchanged on update",
    }),
    referralCode: column.optional().meta({
      description:
        "Its cells hold partners' referral codes: a new lead is attributed to that partner. An update row leaves the lead's partner as it is, as PATCH does",
    }),
    customFields: z
      .record(z.string().min(1).max(100), column)
      .refine((o) => Object.keys(o).length <= 100, 'At most 100 custom fields')
      .optional()
      .meta({ description: 'Custom field key -> column (e.g. {"company": "Company"})' }),
  })
  .strict()
  .meta({ id: 'LeadImportMapping' });

export const LeadImportCreate = z
  .object({
    fileId: encodedId('file').meta({ description: 'A file uploaded through /v1/files (text/csv or application/x-ndjson)' }),
    format: z.enum(IMPORT_FORMATS),
    mapping: LeadImportMapping.meta({
      description: "Every mapped column must be in the file's header row (CSV) or keys (NDJSON): 422 naming it otherwise",
    }),
    onExisting: z.enum(IMPORT_POLICIES).meta({
      description:
        'A row whose normalised email a lead (or an earlier row) already has: skip it, update that lead with it, or create another lead',
    }),
    emitLeadEvents: z
      .boolean()
      .default(false)
      .meta({ description: 'Send a lead.created webhook event per created lead and a lead.updated per lead an update row changed' }),
    triggerCampaigns: z.boolean().default(false).meta({
      description:
        'Enroll the created leads in lead_created campaigns, and leads whose status an update row changed in lead_status_changed ones',
    }),
  })
  .strict()
  .meta({ id: 'LeadImportCreate' });
export type LeadImportCreate = z.output<typeof LeadImportCreate>;

export const LeadImport = z
  .object({
    id: z.string(),
    fileId: z.string(),
    format: z.enum(IMPORT_FORMATS),
    mapping: LeadImportMapping,
    onExisting: z.enum(IMPORT_POLICIES),
    emitLeadEvents: z.boolean(),
    triggerCampaigns: z.boolean(),
    status: z.enum(IMPORT_STATUSES),
    rowsRead: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    rowCap: z.number().int().meta({ description: "Rows past this many are failed (10 x the plan's monthly calls, at least 10,000)" }),
    progress: z.number().min(0).max(1).meta({ description: "Share of the file's bytes read so far (0 while queued, 1 once completed)" }),
    rate: z.number().nullable().meta({ description: 'Rows read per second since the import started' }),
    etaSeconds: z.number().int().nullable().meta({ description: 'Estimated seconds left, from the rate and the bytes left' }),
    error: z.string().nullable(),
    workflowId: z.string(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
  })
  .meta({ id: 'LeadImport', description: 'A bulk import of a file into leads; poll GET /v1/leads/imports/{id} until completed or failed' });
export type LeadImport = z.output<typeof LeadImport>;

export const LeadImportFailure = z
  .object({
    line: z.number().int().meta({ description: 'Line of the file where the row starts (a CSV header is line 1)' }),
    reason: z.string(),
    raw: z.record(z.string(), z.unknown()).meta({ description: 'The values of the row, by column or key' }),
  })
  .meta({ id: 'LeadImportFailure' });
export type LeadImportFailure = z.output<typeof LeadImportFailure>;

export const LeadImportIdParams = z.object({ id: encodedId('leadImport') });
export const LeadImportListQuery = PaginationQuery;
