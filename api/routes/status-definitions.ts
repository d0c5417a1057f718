import { z } from 'zod';
import {
  createStatusDefinition,
  deleteStatusDefinition,
  getStatusDefinition,
  listStatusDefinitions,
  updateStatusDefinition,
} from '../../domain/status-definitions';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeStatusDefinition as serialize } from '../serializers/status-definition';
import {
  StatusDefinition,
  StatusDefinitionRecord,
  StatusDefinitionUpdate,
  StatusIdParams,
  StatusListQuery,
} from '../schemas/status-definition';

const tag = 'Configuration';

/** Lead statuses and opportunity stages (spec 2.6) under /v1/config/statuses. */
export function statusDefinitionRoutes(deps: AppDeps) {
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
      handler: async ({ body, auth }) => ({
        data: serialize(await createStatusDefinition(domainContext(deps, auth), body)),
        message: 'Status definition created',
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/config/statuses',
      summary: 'List status and stage definitions (the defaults are created on first access)',
      tag,
      auth: 'tenant',
      scope: 'config:read',
      query: StatusListQuery,
      response: z.array(StatusDefinitionRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listStatusDefinitions(domainContext(deps, auth), query);
        return { data: rows.map(serialize), pagination: paginate(query.page, query.limit, total), message: 'Status definitions retrieved' };
      },
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
      handler: async ({ params, auth }) => ({
        data: serialize(await getStatusDefinition(domainContext(deps, auth), params.id)),
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
      handler: async ({ params, body, auth }) => ({
        data: serialize(await updateStatusDefinition(domainContext(deps, auth), params.id, body)),
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
      handler: async ({ params, auth }) => ({
        data: serialize(await deleteStatusDefinition(domainContext(deps, auth), params.id)),
        message: 'Status definition deleted',
      }),
    }),
  ];
}
