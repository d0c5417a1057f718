import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../../lib/errors';
import { logger } from '../../lib/logger';
import { errorBody } from '../http/envelope';
import { routeTemplate } from '../http/route-template';

/** Errors raised by body-parser carry a `type`; map them to the spec's statuses. */
function fromBodyParser(err: { type?: string; status?: number }): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('bad_request', 'Malformed JSON in request body', [{ field: 'body', message: 'Body is not valid JSON' }]);
    case 'entity.too.large':
      return new AppError('payload_too_large', 'Request body is too large');
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
  const appError =
    err instanceof AppError
      ? err
      : (fromBodyParser(err) ??
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

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `Route ${req.method} ${req.path} not found`));
};
