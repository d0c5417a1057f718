import type { RequestHandler } from 'express';
import { AppError } from '../../lib/errors';
import { compileRoute, isMoreSpecific } from '../http/route-table';

/**
 * Runs after every route: a path the API serves, asked with a method it does not serve (PUT on
 * a lead, TRACE), is a 405 with `Allow`, not a 404 that says the path does not exist. `OPTIONS`
 * on such a path is answered 204 with `Allow` (RFC 9110's OPTIONS: what the path takes). Where
 * several route paths match, the most specific ones say what the path takes: `/v1/files/upload`
 * takes POST, whatever `/v1/files/:id` takes (the route table leaves such a request unmatched).
 */
export function methodNotAllowed(routes: { path: string; method: string }[]): RequestHandler {
  const byPath = new Map<string, { path: string; pattern: RegExp; methods: Set<string> }>();
  for (const route of routes) {
    // Letter case counts here, as in the lookup of a route's group: a path no route answers is a 404 whatever the method.
    const entry = byPath.get(route.path) ?? {
      path: route.path,
      pattern: compileRoute(route.path, { sensitive: true }).pattern,
      methods: new Set<string>(),
    };
    entry.methods.add(route.method.toUpperCase());
    if (route.method === 'get') entry.methods.add('HEAD');
    byPath.set(route.path, entry);
  }
  const entries = [...byPath.values()];
  return (req, res, next) => {
    const matched = entries.filter(({ pattern }) => pattern.test(req.path));
    const allowed = new Set<string>();
    for (const { path, methods } of matched)
      if (!matched.some((other) => isMoreSpecific(other.path, path))) methods.forEach((m) => allowed.add(m));
    if (allowed.size === 0 || allowed.has(req.method)) return next();
    const allow = [...allowed].sort().join(', ');
    if (req.method === 'OPTIONS') return void res.set('Allow', allow).status(204).end();
    next(
      new AppError('method_not_allowed', `Method ${req.method} is not allowed on ${req.path}; use ${allow}`, undefined, { Allow: allow }),
    );
  };
}
