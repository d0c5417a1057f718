import type { Request, RequestHandler, Response } from 'express';
import type { TenantScope } from '../../db/scoped-repository';
import { verifyTrackingToken, type TrackingClaims, type TrackingKind } from '../../domain/communications/tracking-token';
import type { TrackingHit } from '../../domain/engagement/tracking-hits';
import { unsubscribeByMessage } from '../../domain/engagement/unsubscribe';
import { decodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';

/** A 1x1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const PIXEL_HEADERS = { 'Content-Type': 'image/gif', 'Content-Length': PIXEL.length, 'Cache-Control': 'no-store, max-age=0' };

type Handler = (req: Request, res: Response) => unknown;

/**
 * Public tracking endpoints (no auth; docs/decisions.md, "Tracking and engagement events"): open pixel, click redirect and unsubscribe. Each
 * token is HMAC-signed: a tampered or foreign token is a 404, and a click only ever redirects to
 * the URL that was signed into its token (no open redirect).
 *
 * Dispatched by `/v1/t/<kind>/<token>` directly instead of through an Express router: the open
 * pixel is the hottest public route, and the router's matching cost it more than the signature
 * check. What the router gave is kept: one path segment for the token, percent-decoded (a 400 when it does not decode), a
 * trailing slash allowed, GET routes answering HEAD, `req.params.token`, and `req.route` for the
 * metrics' route label; another method or path goes on (to the 405 or 404 handler).
 */
export function trackingRoutes(deps: AppDeps): RequestHandler {
  const { secret } = deps.tracking;

  const verify = (req: Request, kind: TrackingKind): { claims: TrackingClaims; scope: TenantScope; messageId: string } | null => {
    const claims = verifyTrackingToken(secret, String(req.params.token), kind);
    const tenantId = claims ? decodeId('tenant', claims.t) : null;
    const messageId = claims ? decodeId('message', claims.m) : null;
    if (!claims || !tenantId || !messageId) return null;
    return { claims, scope: { tenantId, environment: claims.e }, messageId };
  };
  /** Opens and clicks are queued, not written: the answer needs nothing but the signed token. */
  const queue = (req: Request, hit: NonNullable<ReturnType<typeof verify>>, type: TrackingHit['type'], details?: Record<string, unknown>) =>
    deps.trackingHits.add({
      scope: hit.scope,
      type,
      messageId: hit.messageId,
      method: req.method,
      userAgent: req.get('user-agent'),
      at: new Date(),
      details,
      token: String(req.params.token),
      ip: req.ip ?? 'unknown',
    });
  const notFound = (res: Response) => res.status(404).type('text').send('Not found');

  const open: Handler = (req, res) => {
    const hit = verify(req, 'o');
    if (!hit) return notFound(res);
    queue(req, hit, 'email_open');
    // Written directly: Express's send() (type lookup, freshness check) costs more than the rest.
    res.writeHead(200, PIXEL_HEADERS).end(PIXEL);
  };

  const click: Handler = (req, res) => {
    const hit = verify(req, 'c');
    if (!hit || !hit.claims.u || !/^https?:\/\//i.test(hit.claims.u)) return notFound(res);
    queue(req, hit, 'link_click', { url: hit.claims.u });
    res.set('Cache-Control', 'no-store').redirect(302, hit.claims.u);
  };

  /** GET from the link in the email, POST from mail clients' one-click List-Unsubscribe (RFC 8058). */
  const unsubscribe: Handler = async (req, res) => {
    const hit = verify(req, 'u');
    if (!hit) return notFound(res);
    // HEAD (link checkers, prefetchers) only looks.
    if (req.method !== 'HEAD') await unsubscribeByMessage(deps, hit.scope, hit.messageId, req.get('user-agent'));
    res
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(
        '<!doctype html><title>Unsubscribed</title><p>You have been unsubscribed and will receive no more emails from this campaign sender.</p>',
      );
  };

  // `route` is what Express sets on a request its route matched, read by routeTemplate for the metrics' label.
  const routes: Record<string, { get: Handler; post?: Handler; route: { path: string } }> = {
    o: { get: open, route: { path: '/v1/t/o/:token' } },
    c: { get: click, route: { path: '/v1/t/c/:token' } },
    u: { get: unsubscribe, post: unsubscribe, route: { path: '/v1/t/u/:token' } },
  };
  return (req, res, next) => {
    const match = req.path.startsWith('/v1/t/') ? TRACKING_PATH.exec(req.path) : null;
    const route = match && routes[match[1]];
    const handler = route && (req.method === 'GET' || req.method === 'HEAD' ? route.get : req.method === 'POST' ? route.post : undefined);
    if (!handler) return next();
    let token = match[2];
    try {
      if (token.includes('%')) token = decodeURIComponent(token);
    } catch (err) {
      return next(err); // a 400 that says so (error-handler.ts), as the router answered
    }
    req.params = { token };
    (req as { route?: unknown }).route = route.route;
    Promise.resolve(handler(req, res)).catch(next);
  };
}

/** `/v1/t/<kind>/<token>`, one segment each, an optional trailing slash (as Express's non-strict routes). */
const TRACKING_PATH = /^\/v1\/t\/([ocu])\/([^/]+)\/?$/;
