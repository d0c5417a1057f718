import { z } from 'zod';
import { ENGAGEMENT_TYPES } from '../db/entities/engagement-event';
import { encodedId, isoDateTime } from './common';

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
    workflowExecutionId: z.string().nullable(),
    timestamp: z.string(),
    machine: z.boolean(),
  })
  .meta({ id: 'EngagementEvent' });
