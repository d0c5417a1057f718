/**
 * The public routes that answer something other than the JSON envelope, and so are not `route()`s:
 * tracking links in emails, hosted landing pages and the local file driver's signed URLs. Written
 * out here so that the document lists the whole public surface (docs/security.md) and the fuzzer
 * sends them generated input too (test/reliability/schemathesis.test.ts).
 */
type JsonSchema = Record<string, unknown>;

const inEnvelope = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
});
const withBody = (description: string, type: string, schema: JsonSchema = { type: 'string' }) => ({
  description,
  content: { [type]: { schema } },
});
const pathParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

/** What every public route can answer besides its own statuses (no API key, so no 401 or 403). */
const SHARED = {
  '400': inEnvelope('The path is not valid percent-encoding'),
  '429': inEnvelope('Too many requests from this address; Retry-After says when to try again'),
  '500': inEnvelope('Internal server error'),
};
const TOKEN_404 = withBody('The token is not one this service signed for this kind of link', 'text/plain');

const operation = (operationId: string, summary: string, parameters: unknown[], responses: Record<string, unknown>, extra = {}) => ({
  summary,
  tags: ['Public'],
  operationId,
  security: [],
  parameters,
  ...extra,
  responses: { ...responses, ...SHARED },
});

const TRACKING_TOKEN = pathParam('token', 'HMAC-signed token from a link in an email this service sent');
const UNSUBSCRIBED = withBody('The recipient is unsubscribed (a confirmation page)', 'text/html');

function trackingPaths() {
  return {
    '/v1/t/o/{token}': {
      get: operation('getTrackingOpen', 'Open pixel: records an open, answers a 1x1 GIF', [TRACKING_TOKEN], {
        '200': withBody('A transparent 1x1 GIF', 'image/gif', { type: 'string', format: 'binary' }),
        '404': TOKEN_404,
      }),
    },
    '/v1/t/c/{token}': {
      get: operation('getTrackingClick', 'Click redirect: records a click, redirects to the URL signed into the token', [TRACKING_TOKEN], {
        '302': { description: 'Redirect to the link the email named', headers: { Location: { schema: { type: 'string' } } } },
        '404': TOKEN_404,
      }),
    },
    '/v1/t/u/{token}': {
      get: operation('getUnsubscribe', 'Unsubscribe link in an email', [TRACKING_TOKEN], { '200': UNSUBSCRIBED, '404': TOKEN_404 }),
      post: operation(
        'postUnsubscribe',
        "One-click unsubscribe from a mail client's List-Unsubscribe-Post (RFC 8058)",
        [TRACKING_TOKEN],
        { '200': UNSUBSCRIBED, '404': TOKEN_404 },
        {
          requestBody: {
            required: false,
            content: {
              'application/x-www-form-urlencoded': {
                schema: { type: 'object', properties: { 'List-Unsubscribe': { const: 'One-Click' } } },
              },
            },
          },
        },
      ),
    },
  };
}

function landingPagePaths() {
  const page = (operationId: string, environment: string) =>
    operation(
      operationId,
      `A published ${environment} landing page`,
      [pathParam('tenantId', 'Tenant ID'), pathParam('slug', 'The page slug (lowercase letters, digits and dashes)')],
      {
        '200': withBody('The page, every text escaped, with a CSP that allows no script', 'text/html'),
        '404': withBody('No published page at this address', 'text/html'),
      },
    );
  return {
    '/p/{tenantId}/{slug}': { get: page('getLandingPage', 'live') },
    '/p/sandbox/{tenantId}/{slug}': { get: page('getSandboxLandingPage', 'sandbox') },
  };
}

/** Only where the local driver answers its own presigned URLs (with S3 they point at the bucket). */
function signedFilePaths() {
  const token = pathParam('token', 'Signed token from POST /v1/files/uploads or GET /v1/files/{id}/download-url');
  const refused = inEnvelope('The URL is invalid or expired, or Content-Type and Content-Length differ from the signed ones');
  return {
    '/v1/files/direct/{token}': {
      put: operation(
        'putSignedFile',
        'Upload the bytes of a pending file (the URL from POST /v1/files/uploads)',
        [token],
        {
          '200': { description: 'Stored; complete the upload with POST /v1/files/{id}/complete' },
          '403': refused,
          '404': inEnvelope('The file was deleted (nothing is stored)'),
        },
        { requestBody: { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } } },
      ),
      get: operation('getSignedFile', 'Download a file (the URL from GET /v1/files/{id}/download-url)', [token], {
        '200': withBody('The file, as an attachment', '*/*', { type: 'string', format: 'binary' }),
        '403': refused,
        '404': inEnvelope('The file was deleted, or its bytes are gone'),
      }),
    },
  };
}

export function publicPaths(opts: { signedFileUrls: boolean }): Record<string, Record<string, unknown>> {
  return { ...trackingPaths(), ...landingPagePaths(), ...(opts.signedFileUrls ? signedFilePaths() : {}) };
}

/** The same routes as `{path, method}` in Express's notation, for the 405 answer on other methods. */
export function routesOf(paths: Record<string, Record<string, unknown>>): { path: string; method: string }[] {
  return Object.entries(paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => ({ path: path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1'), method })),
  );
}
