import { z } from 'zod';
import {
  createSequenceDefinition,
  deleteSequenceDefinition,
  getSequenceDefinition,
  listSequenceDefinitions,
  updateSequenceDefinition,
} from '../../domain/sequence-definitions';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeSequenceDefinition as serialize } from '../serializers/sequence-definition';
import {
  SequenceDefinition,
  SequenceDefinitionRecord,
  SequenceDefinitionUpdate,
  SequenceDefinitionIdParams,
  WorkflowListQuery,
} from '../../contracts/sequence-definition';

const tag = 'Workflows';

/** Campaign sequence definitions (docs/decisions.md, "Workflow definitions (`/v1/workflows`)") under /v1/workflows. */
export function workflowDefinitionRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/workflows',
      summary: 'Create a sequence definition (node/edge format)',
      tag,
      auth: 'tenant',
      scope: 'workflows:write',
      body: SequenceDefinition,
      response: SequenceDefinitionRecord,
      handler: async ({ body, ctx }) => ({
        data: serialize(await createSequenceDefinition(ctx, body)),
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
      response: z.array(SequenceDefinitionRecord),
      message: 'Workflows retrieved',
      serialize: serialize,
      handler: ({ query, ctx }) => listSequenceDefinitions(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/workflows/:id',
      summary: 'Get a sequence definition (current version)',
      tag,
      auth: 'tenant',
      scope: 'workflows:read',
      params: SequenceDefinitionIdParams,
      response: SequenceDefinitionRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await getSequenceDefinition(ctx, params.id)),
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
      params: SequenceDefinitionIdParams,
      body: SequenceDefinitionUpdate,
      response: SequenceDefinitionRecord,
      handler: async ({ params, body, ctx }) => ({
        data: serialize(await updateSequenceDefinition(ctx, params.id, body)),
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
      params: SequenceDefinitionIdParams,
      response: SequenceDefinitionRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await deleteSequenceDefinition(ctx, params.id)),
        message: 'Workflow deleted',
      }),
    }),
  ];
}
