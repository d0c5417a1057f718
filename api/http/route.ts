import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { DomainContext } from '../../domain/context';
import { AppError, GIVEN_MORE_THAN_ONCE, type FieldError } from '../../lib/errors';
import { COMMA_LIST } from '../../contracts/list-filters';
import type { AuthContext } from './context';
import { bareBody, paginate, successBody, type Pagination } from '../../lib/http-envelope';
import { findUnstorableText } from '../../lib/unstorable-text';
import { toFieldErrors } from '../../lib/zod-errors';
import { didYouMean } from '../../lib/near-names';
import { withArticle } from '../../contracts/common';

type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';
type AuthMode = 'tenant' | 'public';

type AnySchema = z.ZodType;
type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

interface HandlerInput<P, Q, B, H = undefined> {
  params: P;
  query: Q;
  body: B;
  /** The request headers the route's `headers` schema names. */
  headers: H;
  auth: AuthContext;
  /** The domain context of the caller's tenant, environment and actor (tenant routes only). */
  ctx: DomainContext;
  req: Request;
  res: Response;
}

interface HandlerResult<D> {
  data: D;
  message?: string;
  status?: number;
  pagination?: Pagination;
  /** Fields added to the envelope's `meta`, described by the route's `meta` schema. */
  meta?: object;
  /** For browser-facing public routes (an HTML form post): answer with a 303 or a page instead of JSON. */
  browser?: { redirectTo: string } | { html: string };
}

export interface RouteSpec<
  P extends AnySchema | undefined,
  Q extends AnySchema | undefined,
  B extends AnySchema | undefined,
  R extends AnySchema,
  H extends AnySchema | undefined = undefined,
> {
  method: HttpMethod;
  /** Express path, e.g. /v1/leads/:id */
  path: string;
  summary: string;
  tag: string;
  /** `tenant` routes need an API key (or JWT) with `scope`; `public` routes need nothing. */
  auth: AuthMode;
  scope?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** `form`: the body is application/x-www-form-urlencoded, as a provider posts its callbacks (the document says so). */
  bodyType?: 'json' | 'form';
  /** Request headers the handler reads, by lowercase name (a provider's signature); others are ignored. */
  headers?: H;
  /** Schema of `data`: documents the response and types the handler's return value. */
  response: R;
  list?: boolean;
  /** Fields the route adds to the envelope's `meta` (facts about the whole response, not one item). */
  meta?: AnySchema;
  status?: number;
  /** `bare`: the body is exactly {success, data, message} (the AI endpoints); errors keep the full envelope. */
  envelope?: 'standard' | 'bare';
  /** Error statuses beyond those the route's shape implies (e.g. 401 from a public login). */
  errors?: number[];
  /**
   * A batch body whose items the handler validates one by one, text PostgreSQL cannot store included: one
   * such item then fails alone instead of refusing the whole request.
   */
  itemsCheckedByHandler?: boolean;
  /**
   * Query parameters under these prefixes are the handler's own, read from the raw query (GET
   * /v1/leads: `customFields.<key>`); any other parameter the schema does not name is a 400.
   */
  queryPrefixes?: readonly string[];
  /**
   * The audit log's resourceType when the path's own (up to its first parameter) names an action
   * rather than the resource: `POST /v1/files/upload` writes `files`, not `files/upload`.
   */
  auditResource?: string;
  /** multipart/form-data routes: the form's fields, for the docs (the handler parses the stream). */
  multipart?: AnySchema;
  /** Routes that answer bytes instead of the envelope send the handler's `data` themselves. */
  send?: (res: Response, data: z.output<R>) => Promise<void>;
  handler: (input: HandlerInput<Infer<P>, Infer<Q>, Infer<B>, Infer<H>>) => Promise<HandlerResult<z.output<R>>>;
}

/** What a list handler returns: one page of rows and the total the pagination reports. */
interface ListResult<Row> {
  rows: Row[];
  total: number;
  /** Facts about the whole list for the envelope's `meta` (the route's `meta` schema). */
  meta?: Record<string, unknown>;
}

/** One page of a list the domain reads whole (bounded lists: a cluster, a referral tree, a partner's codes). */
export function pageOfList<Row>(rows: Row[], query: { page: number; limit: number }): ListResult<Row> {
  return { rows: rows.slice((query.page - 1) * query.limit, query.page * query.limit), total: rows.length };
}

/** A paged query: every list schema carries these. */
type PagedQuery = z.ZodType<{ page: number; limit: number }>;
type Item<R> = R extends z.ZodArray<infer I> ? z.output<I> : never;

/**
 * A list route: the handler returns one page of domain rows and their total; the runner
 * serialises each row and adds the pagination fields.
 */
export interface ListRouteSpec<P extends AnySchema | undefined, Q extends PagedQuery, R extends z.ZodArray, Row> extends Omit<
  RouteSpec<P, Q, undefined, R>,
  'handler' | 'list' | 'body'
> {
  /** The envelope's message, e.g. "Leads retrieved". */
  message: string;
  serialize: (row: NoInfer<Row>) => Item<R>;
  handler: (input: HandlerInput<Infer<P>, z.output<Q>, undefined>) => Promise<ListResult<Row>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any, any, any>;

export function defineRoute<
  P extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  B extends AnySchema | undefined = undefined,
  R extends AnySchema = AnySchema,
  H extends AnySchema | undefined = undefined,
>(spec: RouteSpec<P, Q, B, R, H>): RouteSpec<P, Q, B, R, H> {
  return spec;
}

export function defineListRoute<
  P extends AnySchema | undefined = undefined,
  Q extends PagedQuery = PagedQuery,
  R extends z.ZodArray = z.ZodArray,
  Row = never,
>(spec: ListRouteSpec<P, Q, R, Row>): RouteSpec<P, Q, undefined, R> {
  const { message, serialize, handler, ...route } = spec;
  return {
    ...route,
    list: true,
    handler: async (input) => {
      const { rows, total, meta } = await handler(input as HandlerInput<Infer<P>, z.output<Q>, undefined>);
      const { page, limit } = input.query as { page: number; limit: number };
      return { data: rows.map(serialize) as z.output<R>, pagination: paginate(page, limit, total), meta, message };
    },
  };
}

/**
 * Path params carry IDs: anything that does not decode is "not found", never a validation error.
 * An ID of another type (a campaign's where a lead's goes) says so: its tag is no secret.
 */
function parseParams(schema: AnySchema | undefined, raw: unknown) {
  if (!schema) return undefined;
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const [, wanted, other] = /^Must be a valid (.+?) ID(?:, not (.+ ID))?$/.exec(issue?.message ?? '') ?? [];
  if (!wanted) throw new AppError('not_found', issue?.message ?? 'Not found');
  const hint = other ? [{ field: String(issue.path[0]), message: `This is ${other}, not ${withArticle(wanted)} ID` }] : undefined;
  throw new AppError('not_found', `${wanted} not found`, hint);
}

/** An object schema's fields as the document states them, read once per schema. */
const documentedFields = new WeakMap<AnySchema, Record<string, Record<string, unknown>>>();
interface ObjectJsonSchema {
  properties?: Record<string, Record<string, unknown>>;
  $ref?: string;
  $defs?: Record<string, ObjectJsonSchema>;
}
function fieldsOf(schema: AnySchema): Record<string, Record<string, unknown>> {
  let fields = documentedFields.get(schema);
  if (!fields) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as ObjectJsonSchema;
    // A schema with an ID (a body's, `TaskCreate`) is a reference to its own definition.
    const object = json.$ref ? json.$defs?.[json.$ref.split('/').pop() as string] : json;
    documentedFields.set(schema, (fields = object?.properties ?? {}));
  }
  return fields;
}

/** The names an object schema takes (a query's parameters, a body's fields). */
export const schemaFieldNames = (schema: AnySchema | undefined): string[] => (schema ? Object.keys(fieldsOf(schema)) : []);

/** A query's parameters that take values separated by commas (contracts/list-filters.ts). */
const commaListParameters = (schema: AnySchema | undefined): string[] =>
  schema ? Object.entries(fieldsOf(schema)).flatMap(([name, field]) => (field[COMMA_LIST] ? [name] : [])) : [];

/**
 * A filter of several values takes them as a repeated parameter too, as clients send a list:
 * `status=a&status=b` (most), `status[]=a&status[]=b` (axios, PHP, Rails), read as `status=a,b`.
 */
function withListsJoined(schema: AnySchema | undefined, raw: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(raw).filter((key) => Array.isArray(raw[key]) || key.endsWith('[]'));
  if (!keys.length) return raw;
  const lists = commaListParameters(schema);
  const joined = { ...raw };
  for (const key of keys) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    if (!lists.includes(name)) continue;
    const values = [joined[name], raw[key]].flat().filter((v) => v !== undefined);
    delete joined[key];
    joined[name] = values.join(',');
  }
  return joined;
}

/**
 * An authenticated route refuses a query parameter it does not take, as it refuses an unknown body
 * field: `GET /v1/leads?stauts=lost` answering every lead would let a typo reach whatever the caller
 * does with the list next (a bulk update, a delete). The answer names the parameter it probably
 * meant (`did you mean status?`), else the ones it takes. Public routes (hosted pages, form posts)
 * take whatever a link adds, such as UTM parameters.
 */
function unknownQueryParameters(route: AnyRoute, raw: Record<string, unknown>): FieldError[] {
  let names: string[] | undefined;
  const errors: FieldError[] = [];
  for (const key of Object.keys(raw)) {
    names ??= schemaFieldNames(route.query as AnySchema | undefined);
    if (names.includes(key) || route.queryPrefixes?.some((prefix) => key.startsWith(prefix))) continue;
    const takes = [...names, ...(route.queryPrefixes ?? []).map((prefix) => `${prefix}<key>`)];
    const hint = didYouMean(key, names);
    errors.push({
      field: key,
      message: hint
        ? `Unknown query parameter; ${hint}`
        : takes.length
          ? `Unknown query parameter; this endpoint takes ${takes.join(', ')}`
          : 'Unknown query parameter; this endpoint takes none',
    });
  }
  return errors;
}

function parseQuery(route: AnyRoute, given: Record<string, unknown>) {
  const schema = route.query as AnySchema | undefined;
  const raw = withListsJoined(schema, given);
  const unknown = route.auth === 'tenant' ? unknownQueryParameters(route, raw) : [];
  if (unknown.length) throw new AppError('bad_request', 'Invalid query parameters', unknown);
  // Another repeated parameter is named as such, not as a bad value.
  const repeated = Object.keys(raw).filter((key) => Array.isArray(raw[key]) && schemaFieldNames(schema).includes(key));
  if (repeated.length) {
    throw new AppError(
      'bad_request',
      'Invalid query parameters',
      repeated.map((field) => ({ field, message: GIVEN_MORE_THAN_ONCE })),
    );
  }
  if (!schema) return undefined;
  const unstorable = findUnstorableText(raw);
  if (unstorable) throw new AppError('bad_request', 'Invalid query parameters', [unstorable]);
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new AppError('bad_request', 'Invalid query parameters', toFieldErrors(result.error));
}

/**
 * Whether a route needs a request body (and the document says `required: true`): updates always
 * do, as an update without one is a mistake; other routes when their schema refuses `{}`.
 */
export function bodyRequired(route: AnyRoute): boolean {
  if (!route.body) return false;
  const schema = route.body as AnySchema;
  // A body that must hold something (minProperties, such as a form's fields) cannot be left out either.
  return route.method === 'patch' || route.method === 'put' || !schema.safeParse({}).success || Boolean(schema.meta()?.minProperties);
}

/**
 * An authenticated action without a body schema (`POST /v1/commissions/:id/pay`) refuses fields it
 * would otherwise drop: a caller sending `{"amount": 5}` to pay must not be answered 200 for paying
 * the whole commission. An empty object passes, as generic clients send one.
 */
function refuseBody(raw: unknown): void {
  if (raw === undefined || raw === null) return;
  const keys = typeof raw === 'object' && !Array.isArray(raw) ? Object.keys(raw) : null;
  if (keys?.length === 0) return;
  const message = 'Unknown field; this endpoint takes no request body';
  throw new AppError(
    'validation_failed',
    'Validation failed',
    keys ? keys.map((field) => ({ field, message })) : [{ field: 'body', message }],
  );
}

function parseBody(route: AnyRoute, raw: unknown) {
  const schema = route.body as AnySchema | undefined;
  if (!schema) {
    if (route.auth === 'tenant' && !route.multipart) refuseBody(raw);
    return undefined;
  }
  if (raw === undefined && bodyRequired(route)) {
    throw new AppError('bad_request', 'A JSON request body is required', [{ field: 'body', message: 'Required' }]);
  }
  const unstorable = route.itemsCheckedByHandler ? null : findUnstorableText(raw);
  if (unstorable) throw new AppError('validation_failed', 'Validation failed', [unstorable]);
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw new AppError('validation_failed', 'Validation failed', toFieldErrors(result.error));
}

/** Headers are the caller's protocol, not its data: one that does not fit is a 400 naming it. */
function parseHeaders(schema: AnySchema | undefined, raw: Record<string, unknown>) {
  if (!schema) return undefined;
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new AppError('bad_request', 'Invalid request headers', toFieldErrors(result.error));
}

/** Around every handler (the audit log): `run` wraps the call, `succeeded` runs before the response is sent. */
export interface HandlerHooks {
  run<R>(req: Request, route: AnyRoute, handler: () => Promise<R>): Promise<R>;
  succeeded(req: Request, route: AnyRoute, status: number, data: unknown): Promise<void>;
}

/** Builds the domain context for an authenticated caller (mountRoutes binds it to the app's dependencies). */
export type ContextFor = (auth: AuthContext, req: Request) => DomainContext;

/** A public route has no caller to scope to: reading `ctx` there is a programming error. */
const noContext =
  (route: AnyRoute): ContextFor =>
  () => {
    throw new Error(`${route.method.toUpperCase()} ${route.path} is public: it has no tenant context`);
  };

/** What a successful call answers unless its handler says otherwise. */
export const defaultStatus = (route: AnyRoute): number => route.status ?? (route.method === 'post' ? 201 : 200);

/**
 * The Express handler for a route: parse, build the caller's domain context, call, wrap in the
 * envelope. Errors go to the error middleware.
 */
export function toHandler(route: AnyRoute, contextFor: ContextFor = noContext(route), hooks?: HandlerHooks): RequestHandler {
  return async (req, res) => {
    const params = parseParams(route.params, req.params);
    const query = parseQuery(route, req.query as Record<string, unknown>);
    const body = parseBody(route, req.body);
    const headers = parseHeaders(route.headers, req.headers);
    const auth = req.ctx.auth as AuthContext;
    let ctx: DomainContext | undefined;
    const input = {
      params,
      query,
      body,
      headers,
      auth,
      req,
      res,
      // Built on first use: handlers that answer without the domain pay nothing.
      get ctx() {
        return (ctx ??= auth ? contextFor(auth, req) : noContext(route)(auth, req));
      },
    };
    const result = hooks ? await hooks.run(req, route, () => route.handler(input)) : await route.handler(input);
    const status = result.status ?? defaultStatus(route);
    await hooks?.succeeded(req, route, status, result.data);
    const message = result.message ?? 'OK';
    if (result.browser) {
      if ('redirectTo' in result.browser) return res.redirect(303, result.browser.redirectTo);
      return res.status(status).type('html').send(result.browser.html);
    }
    if (route.send) return route.send(res.status(status), result.data);
    res
      .status(status)
      .json(
        route.envelope === 'bare'
          ? bareBody(message, result.data)
          : successBody(status, message, result.data, result.pagination, result.meta),
      );
  };
}
