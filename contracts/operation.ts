import { z } from 'zod';
import { OPERATION_STATUSES, OPERATION_TYPES } from '../db/entities/operation';
import { Campaign } from './campaign';
import { encodedId } from './common';

export const Operation = z
  .object({
    id: z.string(),
    type: z.enum(OPERATION_TYPES),
    status: z.enum(OPERATION_STATUSES).describe('running until every enrollment was signalled; then succeeded (or failed)'),
    campaignId: z.string().nullable().describe('The campaign of a campaign.* operation'),
    webhookId: z.string().nullable().describe('The webhook endpoint of a webhook.recover operation'),
    total: z.number().int().describe('Items to process (enrollments to signal, deliveries to re-send), counted when it started'),
    processed: z.number().int().describe('Items processed so far'),
    /** The Temporal workflow doing the work (readable in the Temporal UI). */
    workflowId: z.string(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({
    id: 'Operation',
    description: 'Work that continues after a 202 answer; poll GET /v1/operations/{id} until status is not running',
  });
export type Operation = z.output<typeof Operation>;

export const OperationIdParams = z.object({ id: encodedId('operation') });

/** A pause, resume or completion: the campaign in its new status, and the fan-out to its enrollments. */
export const CampaignTransitionResult = Campaign.extend({ operation: Operation.nullable() }).meta({ id: 'CampaignTransition' });
