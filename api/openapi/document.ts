import { z } from 'zod';
import { bodyRequired, type AnyRoute } from '../http/route';
import { PaginationSchema } from '../../contracts/common';

type JsonSchema = Record<string, unknown>;

const ERROR_STATUSES: Record<number, string> = {
  400: 'Malformed JSON or invalid query parameters',
  401: 'Invalid or missing API key',
  403: 'Insufficient permissions',
  404: 'Not found',
  409: 'State conflict',
  410: 'No longer available (an expired change cursor: sync again from the start)',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Validation failed',
  429: 'API call limit exceeded',
  500: 'Internal server error',
};

export interface DocumentInfo {
  serverUrl?: string;
  /** Hand-written path items of routes outside the route runner (api/openapi/public-paths.ts). */
  extraPaths?: Record<string, Record<string, unknown>>;
}

/**
 * OpenAPI 3.1 generated from the same zod schemas that validate requests and type responses.
 * Named schemas (`.meta({ id })`) become components; everything else is inlined.
 */
export function buildOpenApiDocument(routes: AnyRoute[], info: DocumentInfo = {}) {
  const components: Record<string, JsonSchema> = {};

  const convert = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    for (const [name, def] of Object.entries(defs)) components[name] ??= relink(def);
    delete json.$defs;
    delete json.$schema;
    return relink(json);
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const parameters = [
      ...objectParams(route.params, 'path', convert),
      ...objectParams(route.query, 'query', convert),
      ...objectParams(route.headers, 'header', convert),
    ];
    const status = route.status ?? (route.method === 'post' ? 201 : 200);
    const envelope = {
      type: 'object',
      required: ['success', 'status', 'message', 'data', 'meta'],
      properties: {
        success: { const: true },
        status: { type: 'integer', const: status },
        message: { type: 'string' },
        data: convert(route.response, 'output'),
        meta: route.meta
          ? { allOf: [{ $ref: '#/components/schemas/Meta' }, convert(route.meta, 'output')] }
          : { $ref: '#/components/schemas/Meta' },
        ...(route.list ? { pagination: convert(PaginationSchema, 'output') } : {}),
      },
    };
    const body = route.body ? convert(route.body, 'input') : undefined;
    const multipart = route.multipart ? convert(route.multipart, 'input') : undefined;
    const refersToRecords = [body, multipart, route.query && convert(route.query, 'input')].some((s) => namesRecord(s, components));
    const errors = Object.fromEntries(
      errorStatusesFor(route, refersToRecords).map((s) => [
        String(s),
        { description: ERROR_STATUSES[s], content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
      ]),
    );
    (paths[path] ??= {})[route.method] = {
      summary: route.summary,
      tags: [route.tag],
      operationId: operationId(route),
      ...(route.auth === 'tenant' ? { security: [{ ApiKeyAuth: [] }, { BearerAuth: [], TenantId: [] }] } : { security: [] }),
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(body ? { requestBody: { required: bodyRequired(route), content: { [bodyMediaType(route)]: { schema: body } } } } : {}),
      ...(multipart ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: multipart } } } } : {}),
      responses: {
        [String(status)]: {
          description: route.summary,
          content: route.send
            ? // Downloads answer with the stored file's own media type, whatever it is.
              { '*/*': { schema: { type: 'string', format: 'binary' } } }
            : { 'application/json': { schema: route.envelope === 'bare' ? bareEnvelope(envelope.properties.data) : envelope } },
        },
        ...errors,
      },
    };
  }

  for (const [path, operations] of Object.entries(info.extraPaths ?? {})) paths[path] = { ...paths[path], ...operations };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Lead, Partner and Engagement Management API',
      version: 'v1',
      description: 'Responses use the envelope {success, status, message, data, meta, pagination?}. IDs are opaque strings.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    paths,
    components: {
      securitySchemes: {
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Also accepted as `Authorization: Bearer svc_...`' },
        BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        TenantId: { type: 'apiKey', in: 'header', name: 'X-Tenant-Id' },
      },
      schemas: {
        ...components,
        Meta: {
          type: 'object',
          required: ['timestamp', 'version'],
          properties: { timestamp: { type: 'string', format: 'date-time' }, version: { const: 'v1' } },
        },
        ErrorEnvelope: {
          type: 'object',
          required: ['success', 'status', 'message', 'meta'],
          properties: {
            success: { const: false },
            status: { type: 'integer' },
            message: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['field', 'message'],
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
            data: {},
            meta: { $ref: '#/components/schemas/Meta' },
          },
        },
      },
    },
  };
}

/** {success, data, message} only (routes with `envelope: 'bare'`). */
function bareEnvelope(data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['success', 'data', 'message'],
    additionalProperties: false,
    properties: { success: { const: true }, data, message: { type: 'string' } },
  };
}

/**
 * Every status a route can answer besides its success, so clients (and the fuzzer's conformance
 * check) can rely on the list: a body or query that names another record can 404 on it, every
 * write can meet a state conflict, a multipart upload is validated like a JSON body.
 */
function errorStatusesFor(route: AnyRoute, refersToRecords: boolean): number[] {
  const out = new Set([400, 500, ...(route.errors ?? [])]);
  const add = (...statuses: number[]) => statuses.forEach((s) => out.add(s));
  if (route.auth === 'tenant') add(401, 403, 429);
  if (route.params || refersToRecords) add(404);
  if (route.body || route.multipart) add(413, 415, 422);
  if (route.method !== 'get') add(409);
  return [...out].sort();
}

/** Whether a converted schema names a record by ID (`x-id-type`, set by encodedId), through its references too. */
function namesRecord(schema: unknown, components: Record<string, JsonSchema>, seen = new Set<string>()): boolean {
  const text = JSON.stringify(schema ?? {});
  if (text.includes('"x-id-type"')) return true;
  for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (namesRecord(components[name], components, seen)) return true;
  }
  return false;
}

const bodyMediaType = (route: AnyRoute) => (route.bodyType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json');

function objectParams(
  schema: z.ZodType | undefined,
  location: 'path' | 'query' | 'header',
  convert: (s: z.ZodType, io: 'input') => JsonSchema,
) {
  if (!schema) return [];
  const json = convert(schema, 'input');
  const props = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: location,
    required: location === 'path' || (required.has(name) && !('default' in s)),
    schema: s,
  }));
}

function operationId(route: AnyRoute): string {
  const parts = route.path
    .replace(/^\/v1\//, '')
    .split('/')
    .map((p) =>
      p.startsWith(':') ? 'By' + p.slice(1, 2).toUpperCase() + p.slice(2) : p.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()),
    )
    .map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1)));
  return route.method + parts.join('').replace(/^./, (c) => c.toUpperCase());
}

/** Point `$defs` references at components. */
function relink<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/"#\/\$defs\//g, '"#/components/schemas/')) as T;
}
