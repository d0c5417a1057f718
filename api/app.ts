import express, { type Express } from 'express';
import { config, temporalUiUrl, trustProxyWarning } from '../lib/config';
import { logger } from '../lib/logger';
import { fileSettingsFromConfig } from '../lib/files/create-storage';
import { PgCounterStore, type CounterStore } from '../lib/rate-limit/counter-store';
import { RedisCounterStore } from '../lib/rate-limit/redis-counter-store';
import { BatchingCounterStore } from '../lib/rate-limit/batching-counter-store';
import { ApiKeyCache } from './auth/key-cache';
import { TrackingHits, type TrackingHitsOptions } from '../domain/engagement/tracking-hits';
import { RateLimiter, type LimiterOptions, type PublicRouteClass } from '../lib/rate-limit/limiter';
import { trackingSettingsFromConfig } from '../domain/communications/compose-email';
import { TWILIO_STATUS_PATH, twilioCallbackSettingsFromConfig } from '../domain/communications/twilio-status';
import type { AppDeps, AppServices } from './http/domain-context';
import { compose } from './http/compose';
import { installJsonResponse } from './http/json-response';
import { mountRoutes, underPrefix } from './http/mount';
import { errorHandler, notFoundHandler } from './middleware/error-handler';
import { jsonBody } from './middleware/json-body';
import { methodNotAllowed } from './middleware/method-not-allowed';
import { FILE_URL_PREFIX, fileUrlRoutes, servesSignedFileUrls } from './routes/file-urls';
import { MULTIPART_PATHS } from './routes/files';
import { observeRequest } from './middleware/observe-request';
import { PROVIDER_CALLBACKS_PATH, providerCallbackRateLimit, publicRateLimit } from './middleware/public-rate-limit';
import { requestId } from './middleware/request-id';
import { dashboardRoutes } from './routes/dashboard';
import { docsRoutes } from './routes/docs';
import { apiRoutes } from './routes';
import { publicPageRoutes } from './routes/public-pages';
import { publicPaths, routesOf } from './openapi/public-paths';
import { systemRoutes } from './routes/system';
import { trackingRoutes } from './routes/tracking';

export interface AppOptions {
  publicBaseUrl?: string;
  bodyLimit?: string;
  limits?: Partial<Omit<LimiterOptions, 'publicPerMinute'>> & { publicPerMinute?: Partial<Record<PublicRouteClass, number>> };
  /** Where rate-limit and usage counters live; default Redis when REDIS_URL is set, else PostgreSQL. */
  counterStore?: CounterStore;
  trustProxy?: number;
  /** For the dashboard's links into the Temporal UI; default from config (TEMPORAL_UI_URL). */
  temporalUiUrl?: string;
  /** The open/click buffer's bounds and flush interval (tests use small ones). */
  trackingHits?: TrackingHitsOptions;
}

/** A verification request waits this long for DNS (both tries) before answering 503. */
const DKIM_DNS_TIMEOUT_MS = 5_000;

/** The API's composition root: settings the entry point left out are read from config here, once. */
export function createApp(services: AppServices, opts: AppOptions = {}): Express {
  const counterStore =
    opts.counterStore ??
    new BatchingCounterStore(config.REDIS_URL ? new RedisCounterStore(config.REDIS_URL) : new PgCounterStore(services.db));
  const limiter = new RateLimiter(counterStore, {
    ipPerMinute: opts.limits?.ipPerMinute ?? config.IP_RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: opts.limits?.authFailuresPerMinute ?? config.AUTH_FAILURE_LIMIT_PER_MINUTE,
    publicPerMinute: {
      tracking: config.PUBLIC_TRACKING_LIMIT_PER_MINUTE,
      pages: config.PUBLIC_PAGES_LIMIT_PER_MINUTE,
      forms: config.PUBLIC_FORMS_LIMIT_PER_MINUTE,
      login: config.PUBLIC_LOGIN_LIMIT_PER_MINUTE,
      fileUrls: config.PUBLIC_FILE_URLS_LIMIT_PER_MINUTE,
      providerCallbacks: config.PUBLIC_PROVIDER_CALLBACKS_LIMIT_PER_MINUTE,
      ...opts.limits?.publicPerMinute,
    },
  });
  const trustProxy = opts.trustProxy ?? config.TRUST_PROXY;
  const proxyWarning = trustProxyWarning({ NODE_ENV: config.NODE_ENV, TRUST_PROXY: trustProxy });
  if (proxyWarning) logger.warn(proxyWarning);
  const files = services.files ?? fileSettingsFromConfig(config);
  const deps: AppDeps = {
    ...services,
    files,
    tracking: services.tracking ?? trackingSettingsFromConfig(config),
    aiResponseTimeoutMs: services.aiResponseTimeoutMs ?? config.AI_RESPONSE_TIMEOUT_MS,
    tenantMaxInFlight: services.tenantMaxInFlight ?? config.TENANT_MAX_IN_FLIGHT,
    tenantSharedMaxInFlight: services.tenantSharedMaxInFlight ?? config.TENANT_SHARED_MAX_IN_FLIGHT,
    dkimDns: services.dkimDns ?? { servers: config.DKIM_DNS_SERVERS, timeoutMs: DKIM_DNS_TIMEOUT_MS },
    twilio: services.twilio ?? twilioCallbackSettingsFromConfig(config),
    limiter,
    keyCache: new ApiKeyCache(),
    trackingHits: new TrackingHits(services.db, services.workflows, {
      perTenantCapacity: config.TRACKING_BUFFER_PER_TENANT,
      replays: counterStore,
      ...opts.trackingHits,
    }),
  };
  const app = express();
  // Server entry points start the key cache's revocation listener (app.locals.keyCache.listen).
  app.locals.keyCache = deps.keyCache;
  app.locals.deps = deps;
  installJsonResponse(app);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', trustProxy);

  // The public rate limit comes before any unauthenticated route does work (including login's password check).
  app.use(compose([requestId, observeRequest, publicRateLimit(limiter)]));
  // First after the global middleware: the open pixel and click redirect are the hottest public
  // routes and need no body parsing, and nothing else answers under /v1/t/.
  app.use(underPrefix('/v1/t', trackingRoutes(deps)));
  // Public form posts come from browsers as urlencoded bodies as well as JSON; uploads are multipart;
  // one-click unsubscribe (RFC 8058) posts a form body to a tracking URL; signed file URLs take raw bytes;
  // Twilio posts its status callbacks as forms.
  const takesForms = (path: string) => path.startsWith('/v1/public/forms/') || path === TWILIO_STATUS_PATH;
  const takesRawBytes = (path: string) => path.startsWith(FILE_URL_PREFIX);
  const skipJsonCheck = (path: string) => takesForms(path) || MULTIPART_PATHS.has(path) || path.startsWith('/v1/t/') || takesRawBytes(path);
  app.use(jsonBody(opts.bodyLimit ?? config.BODY_LIMIT, skipJsonCheck, takesRawBytes));
  app.use(['/v1/public/forms', TWILIO_STATUS_PATH], express.urlencoded({ extended: false, limit: '64kb' }));
  // Providers' callbacks are limited once their body is read: the limit never counts one its provider signed.
  app.use(PROVIDER_CALLBACKS_PATH, providerCallbackRateLimit(limiter, deps.twilio));

  const routes = apiRoutes(deps);
  app.use(underPrefix(['/healthz', '/readyz', '/metrics'], systemRoutes(deps)));
  const publicDocumented = publicPaths({ signedFileUrls: servesSignedFileUrls(files) });
  app.use(underPrefix(['/v1/openapi.json', '/docs'], docsRoutes(routes, { serverUrl: opts.publicBaseUrl, extraPaths: publicDocumented })));
  app.use(
    underPrefix(
      '/dashboard',
      dashboardRoutes({ temporalUiUrl: opts.temporalUiUrl ?? temporalUiUrl(), temporalNamespace: config.TEMPORAL_NAMESPACE }),
    ),
  );
  app.use(underPrefix(FILE_URL_PREFIX.replace(/\/$/, ''), fileUrlRoutes(files, deps.db)));
  app.use(mountRoutes(routes, deps));
  app.use(underPrefix('/p', publicPageRoutes(deps)));

  const served = [...routes, ...routesOf(publicDocumented)];
  app.use(methodNotAllowed(served), notFoundHandler(served));
  app.use(errorHandler);
  return app;
}

/**
 * Writes what the app holds in memory (rate-limit counts, tracking hits); entry points call it on
 * shutdown after the server stopped taking requests, tests to see recorded hits.
 */
export async function flushApp(app: Express): Promise<void> {
  const deps = app.locals.deps as AppDeps;
  await deps.trackingHits.close();
  await deps.limiter.close();
}
