import { agentDashboard, approveExecution, recordExecution } from '../../domain/agents';
import { domainContext, type AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import { serializeExecution } from '../serializers/agent';
import { AgentDashboard, AgentDashboardQuery, AgentExecution, AgentExecutionCreate, AgentExecutionIdParams } from '../schemas/agent';

export function agentRoutes(deps: AppDeps) {
  const base = { tag: 'Agents', auth: 'tenant', scope: 'agents:write' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/agents/executions',
      summary: 'Record an AI agent execution',
      body: AgentExecutionCreate,
      response: AgentExecution,
      handler: async ({ body, auth }) => ({
        data: serializeExecution(await recordExecution(domainContext(deps, auth), body)),
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
      handler: async ({ params, auth }) => ({
        data: serializeExecution(await approveExecution(domainContext(deps, auth), params.id)),
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
      handler: async ({ query, auth }) => ({
        data: await agentDashboard(domainContext(deps, auth), query),
        message: 'Agent dashboard retrieved',
      }),
    }),
  ];
}
