import { z } from 'zod';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from '../../domain/api-keys';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyIdParams, ApiKeyListQuery } from '../../contracts/api-key';
import { serializeApiKey } from '../serializers/api-key';

export function apiKeyRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/api-keys',
      summary: 'Create an API key (the full key is returned only in this response)',
      tag: 'API keys',
      auth: 'tenant',
      scope: 'api_keys:write',
      body: ApiKeyCreate,
      response: ApiKeyCreated,
      handler: async ({ body, auth, ctx }) => {
        const { key, fullKey } = await createApiKey(ctx, auth.scopes, body);
        return { data: { ...serializeApiKey(key), fullKey }, message: 'API key generated; store it now, it cannot be retrieved later' };
      },
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/api-keys',
      summary: "List the environment's API keys (never the full key)",
      tag: 'API keys',
      auth: 'tenant',
      scope: 'api_keys:read',
      query: ApiKeyListQuery,
      response: z.array(ApiKey),
      message: 'API keys retrieved',
      serialize: serializeApiKey,
      handler: ({ query, ctx }) => listApiKeys(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/api-keys/:id',
      summary: 'Get an API key',
      tag: 'API keys',
      auth: 'tenant',
      scope: 'api_keys:read',
      params: ApiKeyIdParams,
      response: ApiKey,
      handler: async ({ params, ctx }) => ({
        data: serializeApiKey(await getApiKey(ctx, params.id)),
        message: 'API key retrieved',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/api-keys/:id',
      summary: 'Revoke an API key (requests with it get 401 afterwards)',
      tag: 'API keys',
      auth: 'tenant',
      scope: 'api_keys:write',
      params: ApiKeyIdParams,
      response: ApiKey,
      handler: async ({ params, ctx }) => {
        const key = await revokeApiKey(ctx, params.id);
        deps.keyCache.evict(key.keyHash);
        return { data: serializeApiKey(key), message: 'API key revoked' };
      },
    }),
  ];
}
