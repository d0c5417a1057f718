import express, { Router } from 'express';
import { absolutePath } from 'swagger-ui-dist';
import type { AnyRoute } from '../http/route';
import { buildOpenApiDocument, type DocumentInfo } from '../openapi/document';

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title><link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#ui', persistAuthorization: false });`;

/** GET /v1/openapi.json and interactive docs at /docs (assets served locally: works offline). */
export function docsRoutes(routes: AnyRoute[], opts: DocumentInfo): Router {
  const router = Router();
  let document: unknown;
  router.get('/v1/openapi.json', (_req, res) => {
    document ??= buildOpenApiDocument(routes, opts);
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(DOCS_HTML);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT_JS);
  });
  router.use('/docs/assets', express.static(absolutePath(), { index: false, maxAge: '1h' }));
  return router;
}
