import type { Request, RequestHandler, Response } from 'express';
import { RouteTable } from '../http/route-table';
import type { TenantScope } from '../../db/scoped-repository';
import { verifyTrackingToken, type TrackingClaims, type TrackingKind } from '../../domain/communications/tracking-token';
import type { TrackingHit } from '../../domain/engagement/tracking-hits';
import { unsubscribeByMessage } from '../../domain/engagement/unsubscribe';
import { decodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';

/** A 1x1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const PIXEL_HEADERS = { 'Content-Type': 'image/gif', 'Content-Length': PIXEL.length, 'Cache-Control': 'no-store, max-age=0' };

/**
 * Public tracking endpoints (no auth; docs/decisions.md, "Tracking and engagement events"): open pixel, click redirect and unsubscribe. Each
 * token is HMAC-signed: a tampered or foreign token is a 404, and a click only ever redirects to
 * the URL that was signed into its token (no open redirect).
 *
 * A RouteTable, not an Express router: the open pixel is the hottest public route, and its router
 * was about 6 % of its CPU, more than half the signature check's.
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

  const open: RequestHandler = (req, res) => {
    const hit = verify(req, 'o');
    if (!hit) return notFound(res);
    queue(req, hit, 'email_open');
    // Written directly: Express's send() (type lookup, freshness check) costs more than the rest.
    res.writeHead(200, PIXEL_HEADERS).end(PIXEL);
  };

  const click: RequestHandler = (req, res) => {
    const hit = verify(req, 'c');
    if (!hit || !hit.claims.u || !/^https?:\/\//i.test(hit.claims.u)) return notFound(res);
    queue(req, hit, 'link_click', { url: hit.claims.u });
    res.set('Cache-Control', 'no-store').redirect(302, hit.claims.u);
  };

  /** GET from the link in the email, POST from mail clients' one-click List-Unsubscribe (RFC 8058). */
  const unsubscribe: RequestHandler = async (req, res) => {
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

  const table = new RouteTable();
  table.add('get', '/v1/t/o/:token', open);
  table.add('get', '/v1/t/c/:token', click);
  table.add('get', '/v1/t/u/:token', unsubscribe);
  table.add('post', '/v1/t/u/:token', unsubscribe);
  return table.dispatch;
}
