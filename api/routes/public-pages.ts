import { Router, type Response } from 'express';
import type { Environment } from '../../db/entities/tenant-owned';
import { findPublishedPage } from '../../domain/landing-pages/store';
import { renderDocument } from '../../domain/landing-pages/render';
import { decodeId, encodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';

/** Public form endpoint; `id` is a form ID or a landing page ID (its form section). */
export const formSubmissionPath = (id: string) => `/v1/public/forms/${id}/submissions`;

/**
 * Hosted landing pages: GET /p/<tenantId>/<slug> (live) and /p/sandbox/<tenantId>/<slug>. Rendered
 * from the stored fields with every text escaped (never the stored `content` HTML), and a CSP that
 * allows no script at all, so nothing a caller or a model wrote can run on this origin.
 */
export function publicPageRoutes(deps: AppDeps): Router {
  const router = Router();
  const serve = async (res: Response, environment: Environment, tenant: string, slug: string) => {
    const tenantId = decodeId('tenant', tenant);
    const page = tenantId && /^[a-z0-9-]{1,80}$/.test(slug) ? await findPublishedPage(deps.db, { tenantId, environment }, slug) : null;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'self'",
    );
    if (!page) {
      res.status(404).type('html').send('<!doctype html><title>Not found</title><h1>Page not found</h1>');
      return;
    }
    res.type('html').send(renderDocument(page, formSubmissionPath(encodeId('landingPage', page.id))));
  };
  router.get('/p/sandbox/:tenantId/:slug', (req, res) => serve(res, 'sandbox', req.params.tenantId, req.params.slug));
  router.get('/p/:tenantId/:slug', (req, res) => serve(res, 'live', req.params.tenantId, req.params.slug));
  return router;
}
