import { z } from 'zod';
import {
  createStatusDefinition,
  deleteStatusDefinition,
  getStatusDefinition,
  listStatusDefinitions,
  updateStatusDefinition,
} from '../../domain/status-definitions';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeStatusDefinition as serialize } from '../serializers/status-definition';
import {
  StatusDefinition,
  StatusDefinitionRecord,
  StatusDefinitionUpdate,
  StatusIdParams,
  StatusListQuery,
} from '../../contracts/status-definition';

const tag = 'Configuration';

/** Lead statuses and opportunity stages under /v1/config/statuses. */
export function statusDefinitionRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/config/statuses',
      summary: 'Create a lead status or (entityType opportunity) an opportunity stage',
      tag,
      auth: 'tenant',
      scope: 'config:write',
      body: StatusDefinition,
      response: StatusDefinitionRecord,
      handler: async ({ body, ctx }) => ({
        data: serialize(await createStatusDefinition(ctx, body)),
        message: 'Status definition created',
      }),
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/config/statuses',
      summary: 'List status and stage definitions (the defaults are created on first access)',
      tag,
      auth: 'tenant',
      scope: 'config:read',
      query: StatusListQuery,
      response: z.array(StatusDefinitionRecord),
      message: 'Status definitions retrieved',
      serialize: serialize,
      handler: ({ query, ctx }) => listStatusDefinitions(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/config/statuses/:id',
      summary: 'Get a status or stage definition',
      tag,
      auth: 'tenant',
      scope: 'config:read',
      params: StatusIdParams,
      response: StatusDefinitionRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await getStatusDefinition(ctx, params.id)),
        message: 'Status definition retrieved',
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/config/statuses/:id',
      summary: 'Update a status or stage definition (isDefault true moves the default here)',
      tag,
      auth: 'tenant',
      scope: 'config:write',
      params: StatusIdParams,
      body: StatusDefinitionUpdate,
      response: StatusDefinitionRecord,
      handler: async ({ params, body, ctx }) => ({
        data: serialize(await updateStatusDefinition(ctx, params.id, body)),
        message: 'Status definition updated',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/config/statuses/:id',
      summary: 'Delete a status or stage definition (not the default)',
      tag,
      auth: 'tenant',
      scope: 'config:write',
      params: StatusIdParams,
      response: StatusDefinitionRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await deleteStatusDefinition(ctx, params.id)),
        message: 'Status definition deleted',
      }),
    }),
  ];
}
