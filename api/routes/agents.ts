import { agentDashboard, approveExecution, recordExecution } from '../../domain/agents';
import { defineRoute } from '../http/route';
import { serializeExecution } from '../serializers/agent';
import { AgentDashboard, AgentDashboardQuery, AgentExecution, AgentExecutionCreate, AgentExecutionIdParams } from '../../contracts/agent';

export function agentRoutes() {
  const base = { tag: 'Agents', auth: 'tenant', scope: 'agents:write' } as const;
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
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/agents/executions/:id/approve',
      summary: 'Approve an execution that waits for approval (409 otherwise)',
      params: AgentExecutionIdParams,
      response: AgentExecution,
      status: 200,
      handler: async ({ params, ctx }) => ({
        data: serializeExecution(await approveExecution(ctx, params.id)),
        message: 'Execution approved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/agents/dashboard',
      summary: 'Agent activity over a window (rates are fractions 0..1, 0 without data)',
      scope: 'agents:read',
      query: AgentDashboardQuery,
      response: AgentDashboard,
      handler: async ({ query, ctx }) => ({
        data: await agentDashboard(ctx, query),
        message: 'Agent dashboard retrieved',
      }),
    }),
  ];
}
