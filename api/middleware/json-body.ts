import express, { Router, type RequestHandler } from 'express';
import { AppError, type FieldError } from '../../lib/errors';
import { depthExceeds, MAX_JSON_DEPTH } from '../../lib/json-depth';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * What a body's Content-Type was instead. A form-encoded one is most often JSON that `curl -d` sent
 * without a Content-Type header (curl's default), so the answer says how to send it.
 */
function notJson(contentType: string | undefined): FieldError {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  if (!type) return { field: 'Content-Type', message: 'Missing: send application/json with the JSON body' };
  const curl = type === 'application/x-www-form-urlencoded' ? " (curl -d sends that unless given -H 'Content-Type: application/json')" : '';
  return { field: 'Content-Type', message: `Must be application/json, not ${type}${curl}` };
}

/**
 * JSON bodies only (multipart routes opt out by path). A body with another content type is a
 * 415 rather than being silently ignored; one nested deeper than MAX_JSON_DEPTH is a 400.
 * `skip` paths accept other types too; `rawBytes` paths are never parsed, whatever their
 * Content-Type says, since their handler streams the request itself. Only POST, PUT and PATCH
 * bodies are read: no other method of the API takes one (RFC 9110 gives a GET or DELETE body no
 * meaning), and the reads, the hottest requests, then skip the parser altogether.
 */
export function jsonBody(
  limit: string,
  skip: (path: string) => boolean = () => false,
  rawBytes: (path: string) => boolean = () => false,
): RequestHandler {
  const parseJson = express.json({ limit, strict: true });
  const parse: RequestHandler = (req, res, next) => (rawBytes(req.path) ? next() : parseJson(req, res, next));
  const requireJson: RequestHandler = (req, _res, next) => {
    if (skip(req.path)) return next();
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
      return next(new AppError('unsupported_media_type', 'Content-Type must be application/json', [notJson(req.get('content-type'))]));
    }
    next();
  };
  const boundDepth: RequestHandler = (req, _res, next) => {
    if (req.body !== undefined && depthExceeds(req.body, MAX_JSON_DEPTH)) {
      return next(
        new AppError('bad_request', `JSON body is nested too deeply (more than ${MAX_JSON_DEPTH} levels)`, [
          { field: 'body', message: `Nest objects and arrays at most ${MAX_JSON_DEPTH} levels deep` },
        ]),
      );
    }
    next();
  };
  const chain = Router().use(requireJson, parse, boundDepth);
  return (req, res, next) => (METHODS_WITH_BODY.has(req.method) ? chain(req, res, next) : next());
}
