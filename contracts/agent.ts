import { z } from 'zod';
import { AGENTS, AGENT_OUTCOMES, APPROVAL_STATUSES } from '../db/entities/agent-execution';
import { encodedId, isoDateTime } from './common';

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

export const AgentDashboardQuery = z
  .object({
    dateFrom: isoDateTime.optional().meta({ description: 'Window start, not after dateTo (400); default 30 days before dateTo' }),
    dateTo: isoDateTime.optional().meta({ description: 'Window end; default now' }),
  })
  .refine((q) => !q.dateFrom || !q.dateTo || new Date(q.dateFrom) <= new Date(q.dateTo), {
    path: ['dateFrom'],
    message: 'Must not be after dateTo',
  });

export const AgentExecutionIdParams = z.object({ id: encodedId('agentExecution') });
