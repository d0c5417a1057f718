import { z } from 'zod';
import { agentDashboard, decideExecution, getExecution, listExecutions, recordExecution } from '../../domain/agents';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeExecution } from '../serializers/agent';
import {
  AgentDashboard,
  AgentDashboardQuery,
  AgentExecution,
  AgentExecutionCreate,
  AgentExecutionIdParams,
  AgentExecutionListQuery,
} from '../../contracts/agent';

export function agentRoutes() {
  const base = { tag: 'Agents', auth: 'tenant', scope: 'agents:write' } as const;
  const read = { ...base, scope: 'agents:read' } as const;
  const decision = (action: 'approve' | 'reject', summary: string, message: string) =>
    defineRoute({
      ...base,
      method: 'post',
      path: `/v1/agents/executions/:id/${action}`,
      summary,
      params: AgentExecutionIdParams,
      response: AgentExecution,
      status: 200,
      handler: async ({ params, ctx }) => ({ data: serializeExecution(await decideExecution(ctx, params.id, action)), message }),
    });
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/agents/executions',
      summary: 'Record an AI agent execution',
      body: AgentExecutionCreate,
      response: AgentExecution,
      handler: async ({ body, ctx }) => ({
        data: serializeExecution(await recordExecution(ctx, body)),
        message: 'Execution recorded',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/agents/executions',
      summary: 'List agent executions, newest first (approvalStatus=pending: the approval queue, oldest first)',
      query: AgentExecutionListQuery,
      response: z.array(AgentExecution),
      message: 'Executions retrieved',
      serialize: serializeExecution,
      handler: ({ query, ctx }) => listExecutions(ctx, query),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/agents/executions/:id',
      summary: 'Get an agent execution',
      params: AgentExecutionIdParams,
      response: AgentExecution,
      handler: async ({ params, ctx }) => ({
        data: serializeExecution(await getExecution(ctx, params.id)),
        message: 'Execution retrieved',
      }),
    }),
    decision('approve', 'Approve an execution that waits for approval (409 otherwise)', 'Execution approved'),
    decision('reject', 'Reject an execution that waits for approval (409 otherwise)', 'Execution rejected'),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/agents/dashboard',
      summary: 'Agent activity over a window (rates are fractions 0..1, 0 without data)',
      query: AgentDashboardQuery,
      response: AgentDashboard,
      handler: async ({ query, ctx }) => ({
        data: await agentDashboard(ctx, query),
        message: 'Agent dashboard retrieved',
      }),
    }),
  ];
}
