import { z } from 'zod';
import { AppError, type FieldError } from '../lib/errors';
import { LEAD_SOURCES } from '../db/entities/lead';
import {
  emailField,
  encodedId,
  nonBlank,
  PaginationQuery,
  personName,
  phoneField,
  references,
  sortQuery,
  rangeEnd,
  rangeStart,
} from './common';
import { ReferralCodeInput } from './partner';
import { anyOf, codeList } from './list-filters';

/** How many custom fields a lead holds at most, in one request and in all (domain/leads/custom-fields.ts). */
export const MAX_CUSTOM_FIELDS = 100;
const customFieldValues = z
  .record(z.string().min(1).max(100), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]))
  .refine((o) => Object.keys(o).length <= MAX_CUSTOM_FIELDS, `At most ${MAX_CUSTOM_FIELDS} custom fields`);
const customFields = customFieldValues.meta({ description: 'Key-value pairs (string, number, boolean or null values)' });
const customFieldsPatch = customFieldValues.meta({
  description: `Merged into the lead's custom fields key by key (JSON Merge Patch, RFC 7396): a value sets its key, null removes it, keys not named stay. At most ${MAX_CUSTOM_FIELDS} in all afterwards (422 otherwise)`,
});

export const LeadCreate = z
  .object({
    email: emailField,
    firstName: personName,
    lastName: personName,
    phone: phoneField.nullable().optional().meta({ description: 'null: no phone (a PATCH with null clears it)' }),
    source: z.enum(LEAD_SOURCES).optional(),
    status: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .optional()
      .meta({
        description: "Code of one of the tenant's lead statuses (default: the default status, seeded 'new'); another code is a 422",
        ...references('leadStatus'),
      }),
    score: z.number().int().min(0).max(100).optional(),
    assignedTo: encodedId('user').nullable().optional(),
    customFields: customFields.optional(),
    referralCode: ReferralCodeInput.optional().meta({
      description: "An approved partner's referral code: the lead is attributed to that partner (an unknown or inactive code is a 422)",
      ...references('referralCode'),
    }),
  })
  .strict()
  .meta({ id: 'LeadCreate' });
export type LeadCreate = z.output<typeof LeadCreate>;

export const LeadUpdate = LeadCreate.omit({ referralCode: true })
  .partial()
  .extend({ customFields: customFieldsPatch.optional() })
  .strict()
  .meta({ id: 'LeadUpdate' });
export type LeadUpdate = z.output<typeof LeadUpdate>;

export const Lead = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phone: z.string().nullable(),
    source: z.string(),
    status: z.string(),
    score: z.number(),
    assignedTo: z.string().nullable(),
    customFields: z.record(z.string(), z.unknown()),
    partnerId: z.string().nullable().meta({ description: 'Partner the lead is attributed to (by referral code)' }),
    unsubscribedAt: z
      .string()
      .nullable()
      .meta({ description: 'When the lead (or another lead with its address) unsubscribed: no more marketing email' }),
    bouncedAt: z.string().nullable().meta({ description: 'When email to its address hard-bounced: no more email until re-subscribed' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Lead' });
export type Lead = z.output<typeof Lead>;

export const LeadListQuery = PaginationQuery.extend({
  sort: sortQuery(['createdAt', 'updatedAt', 'score', 'email', 'lastName'] as const, 'createdAt:desc'),
  status: codeList(40)
    .optional()
    .meta({
      description:
        "Code of one of the tenant's lead statuses, or several separated by commas to match any of them; another code is a 400 that lists them",
      ...references('leadStatus'),
    }),
  source: anyOf(LEAD_SOURCES).optional(),
  assignedTo: encodedId('user').optional(),
  q: nonBlank(200).optional().meta({
    description:
      "Text to find in the name, email, phone or a custom field's value (case and accents ignored). A phone number of at least 7 digits also finds leads whose phone ends in the same digits, with or without country code",
  }),
  scoreMin: z.coerce.number().int().min(0).max(100).optional(),
  scoreMax: z.coerce.number().int().min(0).max(100).optional(),
  createdFrom: rangeStart.optional(),
  createdTo: rangeEnd.optional(),
  updatedFrom: rangeStart.optional().meta({
    description:
      "Leads changed at or after this moment (a date alone: from the start of that day in UTC). To sync what changed since the last poll, with sort=updatedAt:asc: poll from a minute before the last updatedAt seen, as a change's updatedAt is when its transaction began, and one that began earlier can commit after a later one. GET /v1/leads/changes gives each change once, in commit order, deletes included, without the overlap",
  }),
  updatedTo: rangeEnd.optional(),
});

/** An export takes a list's filters; it has no page and is always oldest first. */
export const LeadExportQuery = LeadListQuery.omit({ page: true, limit: true, sort: true });

export const LeadIdParams = z.object({ id: encodedId('lead') });

export const LeadMerge = z
  .object({
    duplicateId: encodedId('lead').meta({
      description: 'The lead merged into this one and then deleted: another lead than the one in the path',
    }),
  })
  .strict()
  .meta({ id: 'LeadMerge' });

export const LeadDuplicate = z.object({ lead: Lead, reasons: z.array(z.enum(['email', 'phone'])) }).meta({ id: 'LeadDuplicate' });

const LEAD_BATCH_MAX = 100;

export const LeadBatchCreate = z
  .object({
    leads: z
      .array(z.unknown().meta({ description: 'A LeadCreate; each item is validated on its own' }))
      .min(1)
      .max(LEAD_BATCH_MAX)
      .meta({ description: `1 to ${LEAD_BATCH_MAX} leads, each shaped like the body of POST /v1/leads` }),
  })
  .strict()
  .meta({ id: 'LeadBatchCreate' });

/** One item's outcome in a batch's answer, in request order. */
const batchItemResult = <const S extends readonly [string, ...string[]]>(id: string, statuses: S, description: string) =>
  z
    .object({
      index: z.number().int().meta({ description: 'Position of the item in the request' }),
      status: z.enum(statuses).meta({ description }),
      id: z.string().optional(),
      errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    })
    .meta({ id });

export const LeadBatchItemResult = batchItemResult(
  'LeadBatchItemResult',
  ['created', 'duplicate', 'error'],
  'duplicate: the same normalised email as an earlier item of this request, which `id` names; nothing new was created',
);

export const LeadBatchUpdate = z
  .object({
    leads: z
      .array(z.unknown().meta({ description: "A LeadBatchUpdateItem: the lead's id beside the fields to change; validated on its own" }))
      .min(1)
      .max(LEAD_BATCH_MAX)
      .meta({ description: `1 to ${LEAD_BATCH_MAX} changes, each the body of PATCH /v1/leads/{id} with the lead's id beside its fields` }),
  })
  .strict()
  .meta({ id: 'LeadBatchUpdate' });

/** One change of a batch update: the lead's ID beside the fields PATCH /v1/leads/:id takes. */
export const LeadBatchUpdateItem = LeadUpdate.extend({ id: encodedId('lead') })
  .strict()
  .meta({ id: 'LeadBatchUpdateItem' });

export const LeadBatchUpdateResult = batchItemResult(
  'LeadBatchUpdateResult',
  ['updated', 'error'],
  'updated: the change was applied, as PATCH /v1/leads/{id} applies it (a change that changes nothing included); error: `errors` says why, and the lead is as it was',
);

export const LeadDuplicatesMeta = z
  .object({
    commonKeys: z.array(z.enum(['email', 'phone'])).meta({
      description:
        "The lead's keys that more leads share than DEDUPE_COMMON_IDENTITY_LEADS (default 25), such as a switchboard number or a " +
        'placeholder: they are still stored but suggest no duplicates, so no lead is listed for them',
    }),
  })
  // Loose: the document joins it with the envelope's own meta (timestamp, version) through allOf.
  .loose()
  .meta({ id: 'LeadDuplicatesMeta' });

/**
 * `?customFields.<key>=<value>` filters (exact match on the value as text), read from the raw
 * query because the keys are the tenant's own. Documented on GET /v1/leads.
 */
export function customFieldFilters(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (!name.startsWith('customFields.')) continue;
    const key = name.slice('customFields.'.length);
    if (!/^[^\s]{1,100}$/.test(key) || typeof value !== 'string' || value.length > 2000)
      errors.push({ field: name, message: 'Must be customFields.<key>=<value>' });
    else out[key] = value;
  }
  if (Object.keys(out).length + errors.length > 10) errors.push({ field: 'customFields', message: 'At most 10 custom field filters' });
  if (errors.length) throw new AppError('bad_request', 'Invalid query parameters', errors);
  return out;
}
