import { z } from 'zod';
import { CAMPAIGN_STATUSES, CAMPAIGN_TYPES } from '../db/entities/campaign';
import { ENROLLMENT_STATUSES } from '../db/entities/campaign-enrollment';
import { encodedId, nonBlank, PaginationQuery } from './common';
import { anyOf } from './list-filters';

export const CampaignCreate = z
  .object({
    name: nonBlank(200),
    description: z.string().max(2000).optional(),
    type: z.enum(CAMPAIGN_TYPES).optional(),
    /** draft (default) or active; paused and completed are reached through transitions. */
    status: z.enum(['draft', 'active']).optional(),
    workflowId: encodedId('workflow').optional(),
  })
  .strict()
  .meta({ id: 'CampaignCreate' });
export type CampaignCreate = z.output<typeof CampaignCreate>;

export const CampaignUpdate = z
  .object({
    name: nonBlank(200),
    description: z.string().max(2000),
    type: z.enum(CAMPAIGN_TYPES),
    /** The same legal moves as the activate/pause/resume/complete endpoints. */
    status: z.enum(CAMPAIGN_STATUSES),
    workflowId: encodedId('workflow').nullable(),
  })
  .partial()
  .strict()
  .meta({ id: 'CampaignUpdate' });
export type CampaignUpdate = z.output<typeof CampaignUpdate>;

export const Campaign = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    type: z.string(),
    status: z.enum(CAMPAIGN_STATUSES),
    workflowId: z.string().nullable(),
    workflowVersion: z.number().int().nullable(),
    triggerType: z.string().nullable(),
    activatedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Campaign' });
export type Campaign = z.output<typeof Campaign>;

export const CampaignListQuery = PaginationQuery.extend({
  status: anyOf(CAMPAIGN_STATUSES).optional(),
  type: anyOf(CAMPAIGN_TYPES).optional(),
});
export const CampaignIdParams = z.object({ id: encodedId('campaign') });
export const CampaignLeadParams = z.object({ id: encodedId('campaign'), leadId: encodedId('lead') });

export const EnrollRequest = z
  .object({ leadIds: z.array(z.string().max(40)).min(1).max(500) })
  .strict()
  .meta({ id: 'EnrollRequest' });
export const EnrollResult = z
  .object({ leadId: z.string(), status: z.enum(['enrolled', 'already_enrolled', 'not_found', 'unsubscribed']) })
  .meta({ id: 'EnrollResult' });

const SequenceProgress = z
  .object({
    currentNodeId: z.string().nullable(),
    path: z.array(z.string()),
    nextWakeAt: z.string().nullable(),
    waitingFor: z.string().nullable().meta({
      description:
        'What the enrollment waits for, in words: "waiting for open of <email node> until <time>" in a condition, "waiting (<wait node>) until <time>" in a wait',
    }),
    status: z.enum(['running', 'paused', 'completed', 'stopped', 'exited']),
    exitReason: z.string().nullable(),
  })
  .meta({ id: 'SequenceProgress' });

export const Enrollment = z
  .object({
    id: z.string(),
    campaignId: z.string(),
    leadId: z.string(),
    status: z.enum(ENROLLMENT_STATUSES),
    exitReason: z.string().nullable(),
    workflowId: z.string(),
    workflowVersion: z.number().int(),
    enrolledAt: z.string(),
    finishedAt: z.string().nullable(),
    progress: SequenceProgress.nullable(),
  })
  .meta({ id: 'Enrollment' });
export type Enrollment = z.output<typeof Enrollment>;

export const EnrollmentListQuery = PaginationQuery.extend({ status: anyOf(ENROLLMENT_STATUSES).optional() });

const fraction = z.number().min(0).max(1);
export const CampaignStats = z
  .object({
    enrolled: z.number().int(),
    active: z.number().int(),
    completed: z.number().int(),
    sent: z.number().int(),
    delivered: z.number().int().meta({
      description:
        'SMS Twilio reported delivered (status callbacks need PUBLIC_BASE_URL), plus emails sent and not bounced (email has no provider receipt to count)',
    }),
    opened: z.number().int(),
    clicked: z.number().int(),
    replied: z.number().int(),
    bounced: z.number().int(),
    unsubscribed: z.number().int(),
    rates: z.object({ delivery: fraction, open: fraction, click: fraction, reply: fraction, bounce: fraction, unsubscribe: fraction }),
    recipients: z
      .object({
        sent: z.number().int(),
        opened: z.number().int(),
        clicked: z.number().int(),
        bounced: z.number().int(),
        unsubscribed: z.number().int(),
        rates: z.object({ open: fraction, click: fraction, bounce: fraction, unsubscribe: fraction }),
      })
      .meta({
        description:
          'Unique recipients (distinct addresses emailed), human engagement only; rates are fractions of recipients sent to (unsubscribes: of those not bounced)',
      }),
  })
  .meta({ id: 'CampaignStats' });
