import { z } from 'zod';
import {
  createWorkflowDefinition,
  deleteWorkflowDefinition,
  getWorkflowDefinition,
  listWorkflowDefinitions,
  updateWorkflowDefinition,
} from '../../domain/workflow-definitions';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeWorkflowDefinition as serialize } from '../serializers/workflow-definition';
import {
  WorkflowDefinition,
  WorkflowDefinitionRecord,
  WorkflowDefinitionUpdate,
  WorkflowIdParams,
  WorkflowListQuery,
} from '../../contracts/workflow-definition';

const tag = 'Workflows';

/** Campaign sequence definitions (spec 2.13, DESIGN 7) under /v1/workflows. */
export function workflowDefinitionRoutes() {
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
      handler: async ({ body, ctx }) => ({
        data: serialize(await createWorkflowDefinition(ctx, body)),
        message: 'Workflow created',
      }),
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/workflows',
      summary: 'List sequence definitions',
      tag,
      auth: 'tenant',
      scope: 'workflows:read',
      query: WorkflowListQuery,
      response: z.array(WorkflowDefinitionRecord),
      message: 'Workflows retrieved',
      serialize: serialize,
      handler: ({ query, ctx }) => listWorkflowDefinitions(ctx, query),
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
      handler: async ({ params, ctx }) => ({
        data: serialize(await getWorkflowDefinition(ctx, params.id)),
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
      handler: async ({ params, body, ctx }) => ({
        data: serialize(await updateWorkflowDefinition(ctx, params.id, body)),
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
      handler: async ({ params, ctx }) => ({
        data: serialize(await deleteWorkflowDefinition(ctx, params.id)),
        message: 'Workflow deleted',
      }),
    }),
  ];
}
