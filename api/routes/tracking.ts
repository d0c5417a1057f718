import { Router, type Request, type Response } from 'express';
import { IsNull } from 'typeorm';
import { trackingSettingsFromConfig } from '../../activities/messaging/settings';
import { Lead, Message } from '../../db/entities';
import type { EngagementType } from '../../db/entities/engagement-event';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { verifyTrackingToken, type TrackingClaims, type TrackingKind } from '../../domain/communications/tracking-token';
import { isMachineHit } from '../../domain/engagement/machine-traffic';
import { recordEngagement } from '../../domain/engagement/record-engagement';
import { config } from '../../lib/config';
import { decodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';

/** A 1x1 transparent GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/**
 * Public tracking endpoints (no auth, DESIGN 8): open pixel, click redirect and unsubscribe. Each
 * token is HMAC-signed: a tampered or foreign token is a 404, and a click only ever redirects to
 * the URL that was signed into its token (no open redirect).
 */
export function trackingRoutes(deps: AppDeps): Router {
  const router = Router();
  const secret = (deps.tracking ?? trackingSettingsFromConfig(config)).secret;

  const resolve = async (
    req: Request,
    kind: TrackingKind,
  ): Promise<{ claims: TrackingClaims; scope: TenantScope; message: Message | null } | null> => {
    const claims = verifyTrackingToken(secret, String(req.params.token), kind);
    const tenantId = claims ? decodeId('tenant', claims.t) : null;
    const messageId = claims ? decodeId('message', claims.m) : null;
    if (!claims || !tenantId || !messageId) return null;
    const scope = { tenantId, environment: claims.e };
    return { claims, scope, message: await scoped(deps.db.manager, Message, scope).findById(messageId) };
  };
  const record = async (
    req: Request,
    type: EngagementType,
    scope: TenantScope,
    message: Message,
    details: Record<string, unknown> = {},
  ) => {
    const at = new Date();
    const userAgent = req.get('user-agent');
    // An unsubscribe took effect whoever clicked, so it always counts; opens and clicks may be machines.
    const machine = type !== 'unsubscribe' && isMachineHit({ method: req.method, userAgent, sentAt: message.sentAt, at });
    await recordEngagement(deps.db, deps.workflows.client, scope, {
      type,
      leadId: message.leadId,
      message,
      workflowExecutionId: null,
      occurredAt: at,
      machine,
      details: { ...details, userAgent: userAgent?.slice(0, 300) ?? null },
    });
  };
  const notFound = (res: Response) => res.status(404).type('text').send('Not found');

  router.get('/v1/t/o/:token', async (req, res) => {
    const hit = await resolve(req, 'o');
    if (!hit) return notFound(res);
    if (hit.message) await record(req, 'email_open', hit.scope, hit.message);
    res.set('Cache-Control', 'no-store, max-age=0').type('gif').send(PIXEL);
  });

  router.get('/v1/t/c/:token', async (req, res) => {
    const hit = await resolve(req, 'c');
    if (!hit || !hit.claims.u || !/^https?:\/\//i.test(hit.claims.u)) return notFound(res);
    if (hit.message) await record(req, 'link_click', hit.scope, hit.message, { url: hit.claims.u });
    res.set('Cache-Control', 'no-store').redirect(302, hit.claims.u);
  });

  /** GET from the link in the email, POST from mail clients' one-click List-Unsubscribe (RFC 8058). */
  const unsubscribe = async (req: Request, res: Response) => {
    const hit = await resolve(req, 'u');
    if (!hit) return notFound(res);
    if (hit.message?.leadId && req.method !== 'HEAD') {
      const now = new Date();
      const changed = await scoped(deps.db.manager, Lead, hit.scope).updateWhere(
        { id: hit.message.leadId, unsubscribedAt: IsNull() },
        { unsubscribedAt: now },
      );
      if (changed) await record(req, 'unsubscribe', hit.scope, hit.message);
    }
    res
      .set('Cache-Control', 'no-store')
      .type('html')
      .send(
        '<!doctype html><title>Unsubscribed</title><p>You have been unsubscribed and will receive no more emails from this campaign sender.</p>',
      );
  };
  router.get('/v1/t/u/:token', unsubscribe);
  router.post('/v1/t/u/:token', unsubscribe);
  return router;
}
