import { z } from 'zod';
import { ENGAGEMENT_TYPES } from '../db/entities/engagement-event';
import { encodedId, isoDateTime, PaginationQuery } from './common';
import { anyOf } from './list-filters';

export const EngagementEventCreate = z
  .object({
    eventType: z.enum(ENGAGEMENT_TYPES),
    leadId: encodedId('lead').optional(),
    messageId: encodedId('message').optional(),
    /** The enrollment's workflow ID (`campaign/<campaignId>/lead/<leadId>`) to signal. */
    workflowExecutionId: z.string().min(1).max(200).optional(),
    timestamp: isoDateTime.optional(),
  })
  .strict()
  .meta({ id: 'EngagementEventCreate' });
export type EngagementEventCreate = z.output<typeof EngagementEventCreate>;

export const EngagementEventRecord = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    type: z.string(),
    leadId: z.string().nullable(),
    messageId: z.string().nullable(),
    campaignId: z.string().nullable(),
    workflowExecutionId: z.string().nullable(),
    timestamp: z.string(),
    machine: z.boolean().meta({ description: 'Classed as machine traffic: not counted in stats, not signalled, not sent as a webhook' }),
    machineReason: z
      .string()
      .nullable()
      .meta({ description: 'Why (HEAD request, known scanner user agent, prefetch within N s of sending, Apple Mail Privacy Protection)' }),
    userAgent: z.string().nullable().meta({ description: 'Of an open or click, as received (first 300 characters)' }),
  })
  .meta({ id: 'EngagementEvent' });

export const EngagementEventListQuery = PaginationQuery.extend({
  leadId: encodedId('lead').optional(),
  messageId: encodedId('message').optional(),
  campaignId: encodedId('campaign').optional(),
  type: anyOf(ENGAGEMENT_TYPES).optional(),
  machine: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: 'true: only hits classed as machine traffic; false: only people' }),
});
export type EngagementEventListQuery = z.output<typeof EngagementEventListQuery>;

/** How opens and clicks are told apart from machines' (GET/PATCH /v1/analytics/settings). */
export const EngagementSettings = z
  .object({
    countAppleMailPrivacyOpens: z.boolean().meta({
      description:
        "Apple Mail Privacy Protection opens every mail it delivers, read or not. true (default): such opens count as people's; false: they are recorded as machine traffic",
    }),
    prefetchWindowSeconds: z
      .number()
      .int()
      .min(0)
      .max(600)
      .meta({ description: 'Hits this soon after sending are prefetches (machine). Default 2' }),
  })
  .strict()
  .meta({ id: 'EngagementSettings' });
export const EngagementSettingsUpdate = EngagementSettings.partial().strict().meta({ id: 'EngagementSettingsUpdate' });
