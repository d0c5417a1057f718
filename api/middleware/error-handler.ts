import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { constraintViolationOf } from '../../db/constraint-errors';
import { AppError } from '../../lib/errors';
import { jsonBodyProblem } from '../../lib/json-syntax';
import { logger } from '../../lib/logger';
import { errorBody } from '../../lib/http-envelope';
import { routeSuggester, type SuggestableRoute } from '../http/route-suggestions';
import { routeTemplate } from '../http/route-template';

/** Errors raised by body-parser carry a `type`; map them to the spec's statuses. */
function fromBodyParser(err: { type?: string; status?: number; body?: unknown; limit?: unknown }, path: string): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return unparsedBody(err.body);
    case 'entity.too.large':
      return tooLarge(err.limit, path);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Unsupported content encoding or charset');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('bad_request', 'Request body could not be read');
    default:
      return null;
  }
}

/**
 * A 413 with the limit it broke, in the unit BODY_LIMIT was most likely given in; on the leads'
 * routes (a batch, mostly), with the way to send any number of them.
 */
function tooLarge(limit: unknown, path: string): AppError {
  if (typeof limit !== 'number') return new AppError('payload_too_large', 'Request body is too large');
  const [unit, size] = limit % 2 ** 20 === 0 ? ['MB', 2 ** 20] : limit % 2 ** 10 === 0 ? ['KB', 2 ** 10] : ['bytes', 1];
  const leads = path.startsWith('/v1/leads') ? '; send many leads as a file import (POST /v1/leads/imports)' : '';
  return new AppError('payload_too_large', 'Request body is too large', [
    { field: 'body', message: `Must be at most ${limit / size} ${unit}${leads}` },
  ]);
}

/** A body body-parser could not take (in strict mode, also valid JSON that is not an object or array): what is wrong, and where. */
function unparsedBody(body: unknown): AppError {
  const problem = typeof body === 'string' ? jsonBodyProblem(body) : null;
  if (problem && !problem.malformed)
    return new AppError('bad_request', 'Request body must be a JSON object', [{ field: 'body', message: problem.message }]);
  return new AppError('bad_request', 'Malformed JSON in request body', [
    { field: 'body', message: problem?.message ?? 'Body is not valid JSON' },
  ]);
}

/**
 * Other client errors raised below the routes by http-errors (status 4xx, `expose`): a path whose
 * percent-encoding does not decode (the router), a gzip or br body that does not inflate (body-parser).
 */
function fromHttpError(err: { status?: unknown; expose?: unknown; message?: string }): AppError | null {
  // The router marks a path parameter it cannot decode with status 400 only.
  if (err instanceof URIError) return new AppError('bad_request', 'The request path is not valid percent-encoding; encode it as UTF-8');
  if (err?.expose !== true || typeof err.status !== 'number' || err.status < 400 || err.status > 499) return null;
  if (err.status === 413) return new AppError('payload_too_large', 'Request body is too large');
  if (err.status === 415) return new AppError('unsupported_media_type', 'Unsupported content encoding or charset');
  return new AppError('bad_request', 'Request body could not be decoded; check its Content-Encoding', [
    { field: 'body', message: 'Body could not be read as sent' },
  ]);
}

/** 22001 and 23505 from PostgreSQL: input a schema let through that the column or a unique index refuses. */
function fromConstraint(err: unknown, db: DataSource | undefined, body: unknown): AppError | null {
  const violation = constraintViolationOf(err, db, body);
  if (!violation) return null;
  const field = violation.field ?? 'body';
  if (violation.kind === 'too_long') {
    const limit = violation.maxLength ? `at most ${violation.maxLength} characters` : 'shorter';
    return new AppError('validation_failed', 'Validation failed', [{ field, message: `Must be ${limit}` }]);
  }
  return new AppError('conflict', `A record with this ${field} already exists`, [{ field, message: 'Already in use' }]);
}

/** 57014: the statement ran past the pool's statement_timeout (or was cancelled). */
const isStatementTimeout = (err: unknown) => (err as { code?: string })?.code === '57014';

function isServiceUnavailable(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  const name = (err as { name?: string })?.name;
  return (
    code === 'ECONNREFUSED' ||
    code === '57P01' || // admin shutdown
    code === '57P03' || // cannot connect now
    name === 'ServiceError' || // Temporal client: server unreachable
    /Connection terminated|timeout exceeded when trying to connect/i.test(String((err as Error)?.message))
  );
}

/** The one place that turns thrown errors into the envelope. Internals never leave the process. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const db = (req.app.locals.deps as { db?: DataSource } | undefined)?.db;
  const appError =
    err instanceof AppError
      ? err
      : (fromBodyParser(err, req.path) ??
        fromHttpError(err) ??
        fromConstraint(err, db, req.body) ??
        (isStatementTimeout(err)
          ? new AppError('service_unavailable', 'The request took too long to answer; narrow it (filters, a smaller page) or retry shortly')
          : null) ??
        (isServiceUnavailable(err) ? new AppError('service_unavailable', 'Service temporarily unavailable; retry shortly') : null));

  if (!appError) {
    logger.error({ err, requestId: req.ctx?.requestId, route: routeTemplate(req) }, 'unhandled error');
  } else if (appError.code === 'service_unavailable') {
    logger.warn({ err, requestId: req.ctx?.requestId }, 'dependency unavailable');
  }
  const e = appError ?? new AppError('internal', 'Internal server error');
  if (res.headersSent) return;
  if (e.code === 'service_unavailable') res.setHeader('Retry-After', '5');
  for (const [k, v] of Object.entries(e.headers ?? {})) res.setHeader(k, v);
  res.status(e.status).json(errorBody(e.status, e.message, e.errors, e.data));
};

/**
 * A path no route serves: 404, naming the route it probably meant (routeSuggester) and where every
 * route is listed, as Stripe's "Unrecognized request URL" points to its reference.
 */
export function notFoundHandler(routes: SuggestableRoute[]): RequestHandler {
  const suggest = routeSuggester(routes);
  return (req, _res, next) => {
    const meant = suggest(req.method, req.path);
    const hint = meant.length ? ` (did you mean ${meant.join(' or ')}?)` : '';
    next(new AppError('not_found', `Route ${req.method} ${req.path} not found${hint}; every route is in the API reference at /docs`));
  };
}
