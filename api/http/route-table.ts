import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { invoke } from './compose';

interface Entry {
  method: string;
  pattern: RegExp;
  keys: string[];
  /** What Express sets as `req.route` on a match; routeTemplate reads its path for the metrics' label. */
  route: { path: string };
  handle: RequestHandler;
}

/**
 * `/v1/leads/:id` -> a whole-path pattern with one capture per parameter (one non-empty segment),
 * a trailing slash allowed, and the parameters' names. Any letter case matches, as in Express,
 * unless `sensitive`.
 */
export function compileRoute(path: string, { sensitive = false } = {}): { pattern: RegExp; keys: string[] } {
  const keys: string[] = [];
  const source = path
    .split(/(:[A-Za-z0-9_]+)/)
    .map((part) => {
      if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      keys.push(part.slice(1));
      return '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}/?$`, sensitive ? '' : 'i'), keys };
}

/** A parameter as the router decodes it, or its error as the router reports it. */
function decodeParam(value: string): string | URIError {
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    return Object.assign(err, { message: `Failed to decode param '${value}'`, status: 400 });
  }
}

/**
 * Routes matched the way Express 5's router matches them, without its per-layer bookkeeping (the
 * routers' matching was 7-13 % of the API's CPU in the profiles of a read by ID and the open
 * pixel; README, issue 19):
 * in the order added; a path parameter is one segment, percent-decoded (a URIError, answered 400,
 * when it does not decode); a trailing slash and any letter case match; GET routes answer HEAD; a
 * handler's `next()` goes on to the next match and past the last one to the app's next middleware
 * (the 405 and 404 handlers), `next(err)` to the error handler; a returned promise that rejects is
 * an error. Paths are literal segments and `:name` parameters only: the app's routes use no more.
 */
export class RouteTable {
  private readonly entries: Entry[] = [];

  add(method: string, path: string, handle: RequestHandler): void {
    this.entries.push({ method: method.toUpperCase(), ...compileRoute(path), route: { path }, handle });
  }

  readonly dispatch = (req: Request, res: Response, done: NextFunction): void => {
    const entries = this.entries;
    const path = req.path;
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    let i = 0;
    const next = (err?: unknown): void => {
      if (err !== undefined && err !== null) return done(err);
      while (i < entries.length) {
        const entry = entries[i++];
        if (entry.method !== method) continue;
        const match = entry.pattern.exec(path);
        if (!match) continue;
        const params: Record<string, string> = {};
        for (let k = 0; k < entry.keys.length; k++) {
          const value = match[k + 1];
          const decoded = value.includes('%') ? decodeParam(value) : value;
          if (decoded instanceof URIError) return done(decoded);
          params[entry.keys[k]] = decoded;
        }
        req.params = params;
        (req as { route?: unknown }).route = entry.route;
        return invoke(entry.handle, req, res, next, done);
      }
      done();
    };
    next();
  };
}
