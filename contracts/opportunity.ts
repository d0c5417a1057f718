import { z } from 'zod';
import { currencyCode, encodedId, isoDate, nonBlank, PaginationQuery, sortQuery, rangeEnd, rangeStart } from './common';
import { anyOf, codeList } from './list-filters';

// numeric(14,2) holds up to 999,999,999,999.99; anything that rounds above it (1e12, or
// 999999999999.9999 at two decimals) overflowed the column with a 500.
const value = z.number().min(0).max(999_999_999_999.99);

/** POST /v1/opportunities/convert. */
export const ConvertLead = z
  .object({
    leadId: encodedId('lead'),
    value: value.optional(),
    currency: currencyCode.optional(),
    stageId: encodedId('status').optional(),
    name: nonBlank(200).optional(),
  })
  .strict()
  .meta({ id: 'ConvertLead' });
export type ConvertLead = z.output<typeof ConvertLead>;

export const OpportunityCreate = z
  .object({
    name: nonBlank(200),
    leadId: encodedId('lead').optional(),
    value: value.default(0),
    currency: currencyCode.default('USD'),
    stageId: encodedId('status').optional(),
    probability: z.number().int().min(0).max(100).optional(),
    ownerId: encodedId('user').optional(),
    expectedCloseDate: isoDate.optional(),
  })
  .strict()
  .meta({ id: 'OpportunityCreate' });
export type OpportunityCreate = z.output<typeof OpportunityCreate>;

export const OpportunityUpdate = z
  .object({
    name: nonBlank(200),
    value,
    currency: currencyCode,
    stageId: encodedId('status'),
    probability: z.number().int().min(0).max(100).nullable().meta({ description: 'null: follow the stage again' }),
    ownerId: encodedId('user'),
    expectedCloseDate: isoDate.nullable(),
    lostReason: nonBlank(500).meta({ description: 'Recorded when moving to a lost stage' }),
  })
  .partial()
  .strict()
  .meta({ id: 'OpportunityUpdate' });
export type OpportunityUpdate = z.output<typeof OpportunityUpdate>;

export const Opportunity = z
  .object({
    id: z.string(),
    leadId: z.string().nullable(),
    name: z.string(),
    value: z.number(),
    currency: z.string(),
    stage: z.string(),
    stageId: z.string(),
    probability: z.number().int(),
    isClosed: z.boolean(),
    isWon: z.boolean(),
    ownerId: z.string().nullable(),
    expectedCloseDate: z.string().nullable(),
    closedAt: z.string().nullable(),
    lostReason: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Opportunity' });
export type Opportunity = z.output<typeof Opportunity>;

export const OpportunityListQuery = PaginationQuery.extend({
  sort: sortQuery(['createdAt', 'value', 'probability', 'expectedCloseDate'] as const, 'createdAt:desc'),
  stage: codeList(40)
    .optional()
    .meta({ description: "Code of one of the tenant's opportunity stages, or several separated by commas to match any of them" }),
  leadId: encodedId('lead').optional(),
  ownerId: encodedId('user').optional(),
  status: anyOf(['open', 'won', 'lost']).optional(),
  valueMin: z.coerce.number().min(0).optional(),
  valueMax: z.coerce.number().min(0).optional(),
  createdFrom: rangeStart.optional(),
  createdTo: rangeEnd.optional(),
});
export type OpportunityListQuery = z.output<typeof OpportunityListQuery>;

export const OpportunityIdParams = z.object({ id: encodedId('opportunity') });
