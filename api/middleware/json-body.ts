import express, { Router, type RequestHandler } from 'express';
import { AppError } from '../../lib/errors';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** Deeper than any request shape of the API; deeper bodies would only feed recursive walkers (zod, the NUL check). */
const MAX_JSON_DEPTH = 32;

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
      return next(new AppError('unsupported_media_type', 'Content-Type must be application/json'));
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

/**
 * Whether a parsed JSON value nests objects or arrays deeper than `max`. An explicit stack, not
 * recursion: a 10,000-level body must not overflow the call stack here either. Linear in the body.
 */
function depthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
