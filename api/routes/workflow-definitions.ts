import { z } from 'zod';
import {
  createWorkflowDefinition,
  deleteWorkflowDefinition,
  getWorkflowDefinition,
  listWorkflowDefinitions,
  updateWorkflowDefinition,
} from '../../domain/workflow-definitions';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeWorkflowDefinition as serialize } from '../serializers/workflow-definition';
import {
  WorkflowDefinition,
  WorkflowDefinitionRecord,
  WorkflowDefinitionUpdate,
  WorkflowIdParams,
  WorkflowListQuery,
} from '../schemas/workflow-definition';

const tag = 'Workflows';

/** Campaign sequence definitions (spec 2.13, DESIGN 7) under /v1/workflows. */
export function workflowDefinitionRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/workflows',
      summary: 'Create a sequence definition (node/edge format)',
      tag,
      auth: 'tenant',
      scope: 'workflows:write',
      body: WorkflowDefinition,
      response: WorkflowDefinitionRecord,
      handler: async ({ body, auth }) => ({
        data: serialize(await createWorkflowDefinition(domainContext(deps, auth), body)),
        message: 'Workflow created',
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/workflows',
      summary: 'List sequence definitions',
      tag,
      auth: 'tenant',
      scope: 'workflows:read',
      query: WorkflowListQuery,
      response: z.array(WorkflowDefinitionRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listWorkflowDefinitions(domainContext(deps, auth), query);
        return { data: rows.map(serialize), pagination: paginate(query.page, query.limit, total), message: 'Workflows retrieved' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/workflows/:id',
      summary: 'Get a sequence definition (current version)',
      tag,
      auth: 'tenant',
      scope: 'workflows:read',
      params: WorkflowIdParams,
      response: WorkflowDefinitionRecord,
      handler: async ({ params, auth }) => ({
        data: serialize(await getWorkflowDefinition(domainContext(deps, auth), params.id)),
        message: 'Workflow retrieved',
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/workflows/:id',
      summary: 'Update a sequence definition; each update is a new version',
      tag,
      auth: 'tenant',
      scope: 'workflows:write',
      params: WorkflowIdParams,
      body: WorkflowDefinitionUpdate,
      response: WorkflowDefinitionRecord,
      handler: async ({ params, body, auth }) => ({
        data: serialize(await updateWorkflowDefinition(domainContext(deps, auth), params.id, body)),
        message: 'Workflow updated',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/workflows/:id',
      summary: 'Delete a sequence definition and its versions',
      tag,
      auth: 'tenant',
      scope: 'workflows:write',
      params: WorkflowIdParams,
      response: WorkflowDefinitionRecord,
      handler: async ({ params, auth }) => ({
        data: serialize(await deleteWorkflowDefinition(domainContext(deps, auth), params.id)),
        message: 'Workflow deleted',
      }),
    }),
  ];
}
