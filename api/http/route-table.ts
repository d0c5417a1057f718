import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { invoke } from './compose';

interface Entry {
  method: string;
  pattern: RegExp;
  keys: string[];
  /** What Express sets as `req.route` on a match; routeTemplate reads its path for the metrics' label. */
  route: { path: string };
  handle: RequestHandler;
  /**
   * Fixed paths more specific than this entry's (`/v1/files/upload` beside `/v1/files/:id`) that no
   * route of this entry's method serves: a request for one is theirs, answered 405 after the table,
   * not this entry's with a parameter such as `upload`. Undefined for most entries.
   */
  shadowedBy?: RegExp[];
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

const isParam = (segment: string) => segment.includes(':');

/**
 * Whether route path `a` is more specific than `b` where both match a request: the same number of
 * segments, a fixed segment (the same one) wherever `b` has one, and a fixed segment in at least one
 * place where `b` has a parameter. `/v1/files/upload` is more specific than `/v1/files/:id`, so a
 * GET of it is a method that path does not serve (405), not a file ID that names no file (404).
 */
export function isMoreSpecific(a: string, b: string): boolean {
  const as = a.split('/');
  const bs = b.split('/');
  if (as.length !== bs.length) return false;
  let narrower = false;
  for (let i = 0; i < as.length; i++) {
    if (isParam(bs[i])) narrower ||= !isParam(as[i]);
    else if (as[i] !== bs[i]) return false;
  }
  return narrower;
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
 * One departure from Express: a parameter does not take a value that spells a more specific fixed
 * path the request's method is not served on (`GET /v1/files/upload`, where only POST is): the
 * request goes on unmatched, and the app answers 405 naming the methods the fixed path takes. Its
 * cost falls only on the few routes beside such a path, one pattern test after their match; a
 * fixed path the method is served on is left to the order of the routes, as in Express.
 */
export class RouteTable {
  private readonly entries: Entry[] = [];
  /** Each path added, the methods its routes take and its letter-case-sensitive pattern. */
  private readonly paths = new Map<string, { methods: Set<string>; pattern: RegExp }>();

  add(method: string, path: string, handle: RequestHandler): void {
    const entry: Entry = { method: method.toUpperCase(), ...compileRoute(path), route: { path }, handle };
    this.entries.push(entry);
    const known = this.paths.get(path) ?? { methods: new Set<string>(), pattern: compileRoute(path, { sensitive: true }).pattern };
    known.methods.add(entry.method);
    this.paths.set(path, known);
    for (const each of this.entries) each.shadowedBy = this.shadowsOf(each);
  }

  /**
   * The fixed paths that take a request from `entry`. Letter case counts, as in the 405 handler
   * (api/middleware/method-not-allowed.ts): `/v1/files/UPLOAD` is a file ID that names no file.
   */
  private shadowsOf(entry: Entry): RegExp[] | undefined {
    const patterns: RegExp[] = [];
    for (const [path, { methods, pattern }] of this.paths)
      if (!methods.has(entry.method) && isMoreSpecific(path, entry.route.path)) patterns.push(pattern);
    return patterns.length > 0 ? patterns : undefined;
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
        if (entry.shadowedBy !== undefined && entry.shadowedBy.some((shadow) => shadow.test(path))) continue;
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
