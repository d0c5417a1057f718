import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { PROJECT_ROOT } from '../../lib/paths';

export interface DashboardOptions {
  /** Base URL of the Temporal Web UI, for the campaign page's links to enrollment workflows. */
  temporalUiUrl: string;
  temporalNamespace: string;
}

const DASHBOARD_DIR = path.join(PROJECT_ROOT, 'dashboard');

/**
 * The pages load only their own scripts and styles and talk only to this origin; they may not be
 * framed (clickjacking on the revoke and rotate buttons) and send no Referer.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

/**
 * The dashboard: static files under dashboard/ (no build step) that call only the public
 * /v1 API, plus one public, secret-free config document. `no-cache` revalidates on every load, so
 * a deploy is picked up at once; the files are small.
 */
export function dashboardRoutes(opts: DashboardOptions): Router {
  const router = Router();
  router.use('/dashboard', securityHeaders);
  router.get('/dashboard/config.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.json({ temporalUiUrl: opts.temporalUiUrl.replace(/\/+$/, ''), temporalNamespace: opts.temporalNamespace });
  });
  // Served at /dashboard itself (no redirect to /dashboard/): the page uses absolute asset paths.
  router.get('/dashboard', (_req, res) => res.sendFile(path.join(DASHBOARD_DIR, 'index.html'), { cacheControl: true, maxAge: 0 }));
  router.use(
    '/dashboard',
    express.static(DASHBOARD_DIR, { index: 'index.html', redirect: false, dotfiles: 'ignore', cacheControl: true, maxAge: 0 }),
  );
  return router;
}
