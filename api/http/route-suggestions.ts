/**
 * The routes a request for a path no route serves probably meant, for its 404: `/v1/webhooks` is
 * served as `/v1/integrations/webhooks`, `/v1/lead/<id>` as `/v1/leads/:id`. A route is suggested
 * when the request's segments appear in its path in order, each word as a word of the path
 * (spelled alike, in the singular, one letter apart or with two neighbours swapped:
 * lib/near-names.ts) and each ID where the path takes one, with at most two of the path's words
 * left over. The closest routes win (the fewest words left over), those taking the request's
 * method first. A collection nested under its parent as other APIs nest it is suggested as it is
 * served here, standing alone and taking the parent as a filter (nestedAsFilter).
 */

import type { z } from 'zod';
import { alike, singular } from '../../lib/near-names';
import { schemaFieldNames } from './route';

const MAX_LEFT_OVER = 2;
const MAX_SUGGESTIONS = 2;

/** A segment that names something (`leads`, `Leads`, `rotate-secret`) rather than an ID (`leaQY0MXbmNqrDE5`). */
const isWord = (segment: string) => /^[a-z][a-z-]*$/i.test(segment) && !/[a-z][A-Z]/.test(segment);

/** How many of the route's segments the request leaves over, or null when its segments are not in the route in order. */
function leftOver(request: string[], route: string[]): number | null {
  let r = 0;
  let words = 0;
  for (const segment of route) {
    const param = segment.startsWith(':');
    if (r < request.length && (param ? !isWord(request[r]) : alike(request[r].toLowerCase(), segment))) r++;
    else if (param)
      return null; // the route takes an ID the request does not give there
    else words++;
  }
  return r === request.length ? words : null;
}

const segmentsOf = (path: string) => path.split('/').filter(Boolean);

/** A route as the suggester reads it: its query's and body's schemas name the filters and fields it takes. */
export interface SuggestableRoute {
  path: string;
  method: string;
  query?: z.ZodType;
  body?: z.ZodType;
}

/**
 * `GET /v1/partners/<id>/commissions`, a parent's collection nested under it: here the collection
 * stands alone and takes the parent as a query filter, `GET /v1/commissions?partnerId=<id>`, or as
 * a body field for a create, `POST /v1/tasks with leadId in the body`.
 */
function nestedAsFilter(collections: SuggestableRoute[], method: string, request: string[]): string[] {
  if (request.length !== 4 || request[0] !== 'v1') return [];
  const [, parent, id, child] = request;
  if (!isWord(parent) || isWord(id) || !isWord(child)) return [];
  const field = `${singular(parent.toLowerCase())}Id`;
  const takesParent = (route: SuggestableRoute) => schemaFieldNames(method === 'GET' ? route.query : route.body).includes(field);
  const route = collections.find(
    (r) => r.method.toUpperCase() === method && alike(child.toLowerCase(), segmentsOf(r.path).at(-1) as string) && takesParent(r),
  );
  if (!route) return [];
  return [method === 'GET' ? `GET ${route.path}?${field}=${id}` : `${method} ${route.path} with ${field} in the body`];
}

export function routeSuggester(routes: SuggestableRoute[]): (method: string, path: string) => string[] {
  const collections = routes.filter((r) => !r.path.includes(':'));
  const byPath = new Map<string, Set<string>>();
  for (const route of routes) byPath.set(route.path, (byPath.get(route.path) ?? new Set()).add(route.method.toUpperCase()));
  const known = [...byPath].map(([path, methods]) => ({ path, methods, segments: segmentsOf(path) }));
  return (method, path) => {
    const request = segmentsOf(path);
    // Without a word (IDs and the version only), any route taking IDs would fit: nothing to go by.
    if (!request.some(isWord)) return [];
    const fits = known
      .map((route) => ({ route, left: leftOver(request, route.segments) }))
      .filter((c): c is { route: (typeof known)[number]; left: number } => c.left !== null && c.left <= MAX_LEFT_OVER);
    if (!fits.length) return nestedAsFilter(collections, method, request);
    const closest = Math.min(...fits.map((c) => c.left));
    return fits
      .filter((c) => c.left === closest)
      .sort((a, b) => Number(b.route.methods.has(method)) - Number(a.route.methods.has(method)))
      .slice(0, MAX_SUGGESTIONS)
      .map(({ route }) => `${route.methods.has(method) ? method : [...route.methods].sort().join('/')} ${route.path}`);
  };
}
