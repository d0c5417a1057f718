/**
 * The routes a request for a path no route serves probably meant, for its 404: `/v1/webhooks` is
 * served as `/v1/integrations/webhooks`, `/v1/lead/<id>` as `/v1/leads/:id`. A route is suggested
 * when the request's segments appear in its path in order, each word as a word of the path
 * (spelled alike, in the singular, one letter apart or with two neighbours swapped:
 * lib/near-names.ts) and each ID where the path takes one, with at most two of the path's words
 * left over. The closest routes win (the fewest words left over), those taking the request's
 * method first.
 */

import { alike } from '../../lib/near-names';

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

export function routeSuggester(routes: { path: string; method: string }[]): (method: string, path: string) => string[] {
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
    const closest = Math.min(...fits.map((c) => c.left));
    return fits
      .filter((c) => c.left === closest)
      .sort((a, b) => Number(b.route.methods.has(method)) - Number(a.route.methods.has(method)))
      .slice(0, MAX_SUGGESTIONS)
      .map(({ route }) => `${route.methods.has(method) ? method : [...route.methods].sort().join('/')} ${route.path}`);
  };
}
