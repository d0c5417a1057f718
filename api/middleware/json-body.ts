import express, { type RequestHandler } from 'express';
import { AppError } from '../../lib/errors';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON bodies only (multipart routes opt out by path). A body with another content type is a
 * 415 rather than being silently ignored.
 */
export function jsonBody(limit: string, skip: (path: string) => boolean = () => false): RequestHandler[] {
  const parse = express.json({ limit, strict: true });
  const requireJson: RequestHandler = (req, _res, next) => {
    if (!METHODS_WITH_BODY.has(req.method) || skip(req.path)) return next();
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (hasBody && !req.is('application/json') && !req.is('application/*+json')) {
      return next(new AppError('unsupported_media_type', 'Content-Type must be application/json'));
    }
    next();
  };
  return [requireJson, parse];
}
