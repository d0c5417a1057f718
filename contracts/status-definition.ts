import { z } from 'zod';
import { encodedId, nonBlank, PaginationQuery } from './common';
import { anyOf } from './list-filters';

const ENTITY_TYPES = ['lead', 'opportunity'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** Named colors (the UI maps them to its palette), so an AI or a typo cannot inject CSS. */
const STATUS_COLORS = [
  'gray',
  'red',
  'orange',
  'amber',
  'yellow',
  'lime',
  'green',
  'emerald',
  'teal',
  'cyan',
  'sky',
  'blue',
  'indigo',
  'violet',
  'purple',
  'pink',
  'rose',
] as const;

const fields = {
  code: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,39}$/, 'Must be a machine key: lower-case letters, digits and _, starting with a letter (max 40)'),
  name: nonBlank(100),
  description: z.string().max(500).default(''),
  color: z.enum(STATUS_COLORS).default('gray'),
  sortOrder: z.number().int().min(0).max(10_000).default(0),
  isDefault: z.boolean().default(false),
  isClosed: z.boolean().default(false),
  isWon: z.boolean().default(false),
  defaultProbability: z.number().int().min(0).max(100).nullable().default(null),
  entityType: z.enum(ENTITY_TYPES).default('lead'),
};

/** Rules across fields: the opportunity-only flags, and a won stage is closed. */
function checkStageFlags(
  d: { entityType: EntityType; isClosed: boolean; isWon: boolean; defaultProbability: number | null },
  ctx: z.RefinementCtx,
) {
  if (d.entityType === 'lead') {
    for (const key of ['isClosed', 'isWon'] as const) {
      if (d[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'Only opportunity stages can be closed or won' });
    }
    if (d.defaultProbability !== null) {
      ctx.addIssue({ code: 'custom', path: ['defaultProbability'], message: 'Only opportunity stages have a probability' });
    }
  } else if (d.isWon && !d.isClosed) ctx.addIssue({ code: 'custom', path: ['isWon'], message: 'A won stage must also be closed' });
}

/** `isWon: true` without `isClosed: true` beside it (isClosed defaults to false), as JSON Schema. */
const WON_BUT_NOT_CLOSED = { required: ['isWon'], properties: { isWon: { const: true }, isClosed: { const: false } } };

/**
 * The document states checkStageFlags too (zod's refinements do not reach JSON Schema), so a client
 * or fuzzer that follows it never meets the 422: a lead status has no stage flags, a won stage is closed.
 */
const STAGE_FLAG_RULES = {
  anyOf: [
    {
      properties: {
        entityType: { const: 'lead' },
        isClosed: { const: false },
        isWon: { const: false },
        defaultProbability: { type: 'null' },
      },
    },
    { required: ['entityType'], properties: { entityType: { const: 'opportunity' } }, not: WON_BUT_NOT_CLOSED },
  ],
};

/** A status (lead) or stage (opportunity) definition: the body of POST /v1/config/statuses, and what AI generation returns. */
export const StatusDefinition = z
  .object(fields)
  .strict()
  .superRefine(checkStageFlags)
  .meta({ id: 'StatusDefinition', ...STAGE_FLAG_RULES });
export type StatusDefinition = z.output<typeof StatusDefinition>;

/** PATCH: any field but entityType (a status cannot become a stage); the merged record is re-checked with StatusDefinition. */
export const StatusDefinitionUpdate = z
  .object({
    code: fields.code,
    name: fields.name,
    description: z.string().max(500),
    color: z.enum(STATUS_COLORS),
    sortOrder: z.number().int().min(0).max(10_000),
    isDefault: z.boolean(),
    isClosed: z.boolean(),
    isWon: z.boolean(),
    defaultProbability: z.number().int().min(0).max(100).nullable(),
  })
  .partial()
  .strict()
  .meta({
    id: 'StatusDefinitionUpdate',
    description:
      'On a lead status, isClosed and isWon must stay false and defaultProbability null (422 otherwise). ' +
      'A won stage is closed: the document asks for isClosed: true beside isWon: true (the server also takes isWon alone on a closed stage).',
    not: WON_BUT_NOT_CLOSED,
  });
export type StatusDefinitionUpdate = z.output<typeof StatusDefinitionUpdate>;

export const StatusDefinitionRecord = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    description: z.string(),
    color: z.string(),
    sortOrder: z.number().int(),
    isDefault: z.boolean(),
    isClosed: z.boolean(),
    isWon: z.boolean(),
    defaultProbability: z.number().int().nullable(),
    entityType: z.enum(ENTITY_TYPES),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'StatusDefinitionRecord' });
export type StatusDefinitionRecord = z.output<typeof StatusDefinitionRecord>;

export const StatusListQuery = PaginationQuery.extend({ entityType: anyOf(ENTITY_TYPES).optional() });
export const StatusIdParams = z.object({ id: encodedId('status') });
