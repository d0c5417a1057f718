import { z } from 'zod';
import { AGENTS, AGENT_OUTCOMES, APPROVAL_STATUSES } from '../db/entities/agent-execution';
import { encodedId, PaginationQuery, rangeEnd, rangeStart } from './common';
import { anyOf } from './list-filters';

export const AgentExecutionCreate = z
  .object({
    agent: z.enum(AGENTS),
    outcome: z.enum(AGENT_OUTCOMES),
    accepted: z.boolean().optional().meta({ description: 'Recommender only: whether the recommendation was taken' }),
    requiresApproval: z.boolean().optional().meta({ description: 'true: the execution waits for POST .../approve' }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.accepted !== undefined && v.agent !== 'recommender') {
      ctx.addIssue({ code: 'custom', path: ['accepted'], message: 'Only recommender executions can be accepted' });
    }
  })
  .meta({ id: 'AgentExecutionCreate', anyOf: [{ properties: { agent: { const: 'recommender' } } }, { not: { required: ['accepted'] } }] });
export type AgentExecutionCreate = z.output<typeof AgentExecutionCreate>;

export const AgentExecution = z
  .object({
    id: z.string(),
    agent: z.enum(AGENTS),
    outcome: z.enum(AGENT_OUTCOMES),
    accepted: z.boolean().nullable(),
    approvalStatus: z.enum(APPROVAL_STATUSES),
    approvedAt: z.string().nullable(),
    rejectedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'AgentExecution' });

const rate = z.number().min(0).max(1);
export const AgentDashboard = z
  .object({
    agents: z.object({
      caller: z.object({ status: z.string(), totalCalls: z.number().int(), successRate: rate }),
      recommender: z.object({ status: z.string(), totalRecommendations: z.number().int(), acceptRate: rate }),
    }),
    recentExecutions: z.number().int(),
    pendingApprovals: z.number().int(),
  })
  .meta({ id: 'AgentDashboard' });
export type AgentDashboard = z.output<typeof AgentDashboard>;

export const AgentDashboardQuery = z.object({
  // An inverted window is empty, as an inverted createdFrom/createdTo is on the lists: a rule
  // between two parameters that the document could not state would make it a 400 the fuzzer finds.
  dateFrom: rangeStart.optional().meta({
    description:
      'Window start (a date alone: from the start of that day, UTC); default 30 days before dateTo. A start after the end is an empty window: every count is 0',
  }),
  dateTo: rangeEnd.optional().meta({ description: 'Window end (a date alone: to the end of that day, UTC); default now' }),
});

export const AgentExecutionListQuery = PaginationQuery.extend({
  agent: anyOf(AGENTS).optional(),
  approvalStatus: anyOf(APPROVAL_STATUSES, 'pending alone: the approval queue, oldest first').optional(),
});
export type AgentExecutionListQuery = z.output<typeof AgentExecutionListQuery>;

export const AgentExecutionIdParams = z.object({ id: encodedId('agentExecution') });
