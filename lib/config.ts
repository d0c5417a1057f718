import { z } from 'zod';

/**
 * The only reader of process.env. Parsed once; everything else imports `config`.
 * Empty strings count as unset so `FOO= npm start` behaves like no FOO at all.
 */
const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
const booleanString = z
  .preprocess((v) => (v === '' ? undefined : v), z.enum(['true', 'false']).default('false'))
  .transform((v) => v === 'true');

/**
 * Built-in values so `npm start` and the tests run without setup. Anyone can read them here, so a
 * production process refuses to start with any of them (see productionSecretProblems).
 */
const DEV_SECRETS = {
  JWT_SECRET: 'dev-jwt-secret-change-me-please',
  TRACKING_SECRET: 'dev-tracking-secret-change-me',
  FILE_URL_SECRET: 'dev-file-url-secret-change-me',
  ID_SECRET: 'dev-id-secret-change-me',
  DKIM_KEY_SECRET: 'dev-dkim-key-secret-change-me',
} as const;
type SecretName = keyof typeof DEV_SECRETS;
/** 32 random bytes: an HMAC-SHA256 key as strong as its hash; shorter ones are guessable offline. */
const MIN_PRODUCTION_SECRET_BYTES = 32;

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_BASE_URL: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  DATABASE_URL: optionalString,
  TEST_DATABASE_URL: optionalString,
  EMBEDDED_PG_PORT: z.coerce.number().int().default(54329),
  DATA_DIR: z.string().default('.data'),

  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_CLI_PATH: optionalString,
  TEMPORAL_TEST_SERVER_PATH: optionalString,
  TEMPORAL_DEV_PORT: z.coerce.number().int().default(7233),
  TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
  /** Where the Temporal Web UI is (the dashboard links to workflows there). Default: the dev server's UI. */
  TEMPORAL_UI_URL: optionalString,
  TEMPORAL_TASK_QUEUE: z.string().default('lead-engagement'),
  /** A workflow bundle built ahead (bundleWorkflowCode): the worker starts in seconds instead of bundling workflows/. */
  WORKFLOW_BUNDLE_PATH: optionalString,

  ID_SECRET: z.string().min(8).default(DEV_SECRETS.ID_SECRET),
  JWT_SECRET: z.string().min(16).default(DEV_SECRETS.JWT_SECRET),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  /** Behind a load balancer, set to the number of trusted proxy hops so per-IP limits see the client. */
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  /** Rate-limit and usage counters in Redis instead of PostgreSQL (both are shared by all API processes). */
  REDIS_URL: optionalString,
  IP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10_000),
  AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  BODY_LIMIT: z.string().default('1mb'),
  /** Uploaded files' bytes live here (default: DATA_DIR/files). */
  FILES_DIR: optionalString,
  FILE_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  /** Where file bytes live: local disk (FILES_DIR) or an S3-compatible bucket (presigned transfers then bypass the API). */
  FILES_DRIVER: z.enum(['local', 's3']).default('local'),
  /** Size limit for direct (presigned) uploads; the size column is a 32-bit integer, hence the cap. */
  FILE_DIRECT_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .default(1024 * 1024 * 1024),
  /** How long presigned upload and download URLs stay valid. */
  FILE_URL_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  /** Signs the local driver's upload and download URLs (the API answers them itself). */
  FILE_URL_SECRET: z.string().min(16).default(DEV_SECRETS.FILE_URL_SECRET),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().default('us-east-1'),
  /** For S3-compatible services (MinIO, R2, moto); unset means AWS. */
  S3_ENDPOINT: optionalString,
  /** Where clients reach the bucket when not at S3_ENDPOINT (a compose network name): presigned URLs point here. */
  S3_PUBLIC_ENDPOINT: optionalString,
  /** Without both keys the AWS default credential chain applies (instance role, AWS_PROFILE, ...). */
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  /** Bucket in the path instead of the host name: most S3-compatible services need it. */
  S3_FORCE_PATH_STYLE: booleanString,

  /** Dev and tests only: lets webhook endpoints point at private, loopback or link-local addresses. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanString,
  /** How often the outbox sweep runs, and how old an undispatched event must be before it takes it (docs/decisions.md, "Webhooks"). */
  WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  WEBHOOK_SWEEP_MIN_AGE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Days webhook events and their delivery records are kept; older ones are purged hourly (docs/decisions.md, "Webhooks"). */
  WEBHOOK_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  /** Days a change feed lists a deleted lead or opportunity; older ones are purged hourly, and a cursor from before them is refused (docs/decisions.md, "Change feed"). */
  CHANGE_FEED_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  /** How often the auto-enroll sweep runs, and how old a pending enrollment must be before it takes it (docs/decisions.md, "Automatic enrollment"). */
  AUTO_ENROLL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  AUTO_ENROLL_SWEEP_MIN_AGE_MS: z.coerce.number().int().min(0).default(30_000),
  /** Delays before each delivery attempt, comma-separated ms; unset: the ~28 h schedule (docs/decisions.md, "Webhooks"). */
  WEBHOOK_RETRY_DELAYS_MS: z.preprocess(
    (v) => (v === '' || v === undefined ? undefined : String(v).split(',').map(Number)),
    z.array(z.number().int().min(0)).min(1).optional(),
  ),
  /**
   * Tests only (crash scenarios): the API holds its background starts (webhook relay, duplicate
   * checks, automatic enrollments) this long after a commit, so a test can kill it inside that window.
   */
  TEST_BACKGROUND_START_DELAY_MS: z.coerce.number().int().min(0).default(0),
  // AI generation: no key means the deterministic templates answer.
  AI_API_KEY: optionalString,
  AI_MODEL: z.string().default('gpt-4o-mini'),
  AI_BASE_URL: optionalString,
  AI_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  AI_RESPONSE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  // Email and SMS: without SMTP_URL / TWILIO_* (and always in sandbox) a capture transport records messages.
  SMTP_URL: optionalString,
  EMAIL_FROM: z.string().default('Campaigns <campaigns@localhost>'),
  TWILIO_ACCOUNT_SID: optionalString,
  TWILIO_AUTH_TOKEN: optionalString,
  TWILIO_FROM: optionalString,
  /** Replaces https://<product>.twilio.com (a local stand-in in tests, a proxy in some deployments). */
  TWILIO_API_BASE_URL: optionalString,
  /** Signs open, click and unsubscribe tokens. */
  TRACKING_SECRET: z.string().min(16).default(DEV_SECRETS.TRACKING_SECRET),
  /** Encrypts the DKIM private keys tenants register (AES-256-GCM under a key derived from it). */
  DKIM_KEY_SECRET: z.string().min(16).default(DEV_SECRETS.DKIM_KEY_SECRET),
  /** host:port of the DNS servers a sending domain's DKIM record is looked up at, comma-separated (unset: the system's). */
  DKIM_DNS_SERVERS: z.preprocess(
    (v) =>
      v === '' || v === undefined
        ? undefined
        : String(v)
            .split(',')
            .map((s) => s.trim()),
    z.array(z.string().min(1)).min(1).optional(),
  ),
  /**
   * Password hashes and verifications (argon2, on libuv's thread pool of 4) running at once per
   * process: a login flood then waits its turn instead of taking every thread other requests need.
   */
  PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Password checks that may wait for a slot; beyond that a login answers 429 at once. */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(100_000).default(200),

  /** `npm run worker` serves /healthz and /metrics on this port (unset: no HTTP server). */
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** host:port where the Temporal SDK's Prometheus exporter listens (worker metrics; merged into the worker's /metrics). */
  TEMPORAL_SDK_METRICS_ADDRESS: optionalString,
  /** On SIGTERM the worker stops polling and gives in-flight activities this long to finish before cancelling them. */
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(30_000),

  // Temporal on a real cluster (README, "Temporal Cloud or your own cluster"): TLS, mTLS client certificates and/or an API key.
  /** TLS with the system's trusted CAs (Temporal Cloud). Implied by any TEMPORAL_TLS_* path and by TEMPORAL_API_KEY. */
  TEMPORAL_TLS: booleanString,
  /** PEM file of the CA that signed the server's certificate (self-hosted with a private CA). */
  TEMPORAL_TLS_CA_PATH: optionalString,
  /** PEM files of this client's certificate and key (mTLS: Temporal Cloud's certificate auth, or a self-hosted frontend that requires it). */
  TEMPORAL_TLS_CERT_PATH: optionalString,
  TEMPORAL_TLS_KEY_PATH: optionalString,
  /** The name to verify the server's certificate against when it differs from TEMPORAL_ADDRESS's host. */
  TEMPORAL_TLS_SERVER_NAME: optionalString,
  /** Temporal Cloud API key (sent as a bearer token; requires TLS, which it turns on). */
  TEMPORAL_API_KEY: optionalString,
  /** Bound on resolving a webhook target's host name (c-ares, off the thread pool argon2 uses). */
  WEBHOOK_DNS_TIMEOUT_MS: z.coerce.number().int().min(100).default(3000),
  /** statement_timeout of the API's database connections: no request holds a connection longer (0: none). */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5000),
  /** statement_timeout of the worker's connections: activities may run longer statements than requests (0: none). */
  WORKER_DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Connections in the API's pool. A request holds one for a statement or a short transaction, so
   * a handful serves hundreds of requests a second; beyond PostgreSQL's cores more only queue there.
   */
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(10),
  /**
   * An email or phone shared by more than this many leads of a tenant and environment (a company
   * switchboard, a placeholder typed into forms) is common: it suggests no duplicates and starts no
   * duplicate check for new leads.
   */
  DEDUPE_COMMON_IDENTITY_LEADS: z.coerce.number().int().min(1).default(25),
  /**
   * The worker's own database connections (the API keeps its own pool, also inside npm start, so
   * background work cannot take the API's connections); activities run at most this many at once.
   * Its statement_timeout is WORKER_DB_STATEMENT_TIMEOUT_MS.
   */
  WORKER_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Webhook HTTP attempts a worker process runs at once (their own task queue: a slow endpoint holds no database slot). */
  WORKER_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  /** Email and SMS provider calls a worker process runs at once. */
  WORKER_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(20),
  /**
   * Provider sends started per second across all workers (Temporal enforces it on the task queue):
   * set it to the provider's limit (SES, SendGrid, Twilio). Unset: no limit.
   */
  WORKER_SEND_RATE_PER_SECOND: z.coerce.number().positive().optional(),
  /** AI model calls a worker process runs at once. */
  WORKER_AI_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(10),
  /** Requests of one tenant and environment an API process runs at once; the rest queue (api/middleware/tenant-fair-share.ts). */
  TENANT_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(4),
  /** The same while another tenant or environment also sends requests (one within the last second). */
  TENANT_SHARED_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(1),

  // Per-IP limits on the unauthenticated routes, per route class and minute (docs/security.md).
  /** Open pixel, click redirect, unsubscribe: generous, a busy corporate NAT opens a lot of mail from one address. */
  PUBLIC_TRACKING_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(6_000),
  /** Hosted landing pages. */
  PUBLIC_PAGES_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Public form submissions: each one can create a lead. */
  PUBLIC_FORMS_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** POST /v1/auth/login attempts, successful or not (failures have their own AUTH_FAILURE_LIMIT_PER_MINUTE). */
  PUBLIC_LOGIN_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
  /** The local driver's signed upload and download URLs. */
  PUBLIC_FILE_URLS_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Providers' callbacks their provider did not sign (unsigned, forged, another account's): Twilio's own are never counted nor refused. */
  PUBLIC_PROVIDER_CALLBACKS_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(6_000),
  /** Opens and clicks one tenant may have waiting in an API process's buffer; past it that tenant's new hits are dropped. */
  TRACKING_BUFFER_PER_TENANT: z.coerce.number().int().min(1).default(10_000),
  /** Webhook endpoints one tenant may have per environment; one more is a 422. */
  WEBHOOK_ENDPOINTS_MAX: z.coerce.number().int().min(1).default(20),
});

/**
 * In production each signing secret must be set, at least 32 bytes long and not a built-in dev value:
 * with a known JWT_SECRET anyone signs an admin token for any tenant, with a known TRACKING_SECRET or
 * FILE_URL_SECRET anyone forges tracking or file links, and a known ID_SECRET decodes every public ID.
 */
function productionSecretProblems(c: Record<SecretName, string>): { name: SecretName; message: string }[] {
  const problems: { name: SecretName; message: string }[] = [];
  for (const name of Object.keys(DEV_SECRETS) as SecretName[]) {
    const bytes = Buffer.byteLength(c[name]);
    if (c[name] === DEV_SECRETS[name]) problems.push({ name, message: 'unset (or the built-in dev value), which production must not use' });
    else if (bytes < MIN_PRODUCTION_SECRET_BYTES)
      problems.push({ name, message: `${bytes} bytes long; production needs at least ${MIN_PRODUCTION_SECRET_BYTES} random bytes` });
  }
  return problems;
}

const SECRET_HOW_TO = 'generate each one with `openssl rand -base64 48` and keep it in your secret store';

/** Rules across variables, checked at startup rather than on first use. */
const isHttpsUrl = (value: string | undefined) => {
  try {
    const url = new URL(value ?? '');
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
};

export const ConfigSchema = EnvSchema.superRefine((c, ctx) => {
  if (c.NODE_ENV === 'production') {
    for (const { name, message } of productionSecretProblems(c)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `${message}; ${SECRET_HOW_TO}` });
    }
  }
  // Live email carries tracking and unsubscribe links to PUBLIC_BASE_URL: without it they point at
  // http://localhost, and over http a one-click unsubscribe (RFC 8058, required by Gmail and Yahoo for bulk mail) is not honoured.
  if (c.NODE_ENV === 'production' && c.SMTP_URL && !isHttpsUrl(c.PUBLIC_BASE_URL)) {
    ctx.addIssue({
      code: 'custom',
      path: ['PUBLIC_BASE_URL'],
      message: `${c.PUBLIC_BASE_URL ? `"${c.PUBLIC_BASE_URL}" is not https` : 'unset'}; live email (SMTP_URL is set) needs the https address this service is reached at from the internet (e.g. https://api.example.com), because its tracking and List-Unsubscribe links point there`,
    });
  }
  if (c.FILES_DRIVER === 's3' && !c.S3_BUCKET)
    ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when FILES_DRIVER=s3' });
  if (!c.TEMPORAL_TLS_CERT_PATH !== !c.TEMPORAL_TLS_KEY_PATH) {
    ctx.addIssue({
      code: 'custom',
      path: ['TEMPORAL_TLS_KEY_PATH'],
      message: 'TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together (the client certificate and its private key)',
    });
  }
  if (c.TEMPORAL_TLS_SERVER_NAME && !c.TEMPORAL_TLS && !c.TEMPORAL_TLS_CA_PATH && !c.TEMPORAL_TLS_CERT_PATH && !c.TEMPORAL_API_KEY) {
    ctx.addIssue({ code: 'custom', path: ['TEMPORAL_TLS_SERVER_NAME'], message: 'only applies with TLS: set TEMPORAL_TLS=true as well' });
  }
  if (!c.S3_ACCESS_KEY_ID !== !c.S3_SECRET_ACCESS_KEY) {
    ctx.addIssue({ code: 'custom', path: ['S3_SECRET_ACCESS_KEY'], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together' });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

/** An environment that cannot run: its message lists every offending variable and what to do. */
class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/**
 * Every entry point (API, worker, admin CLI, npm start) imports this module before its own code runs,
 * so a bad environment is reported here: the message alone on stderr, no stack trace, exit code 1.
 */
function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

export const config: Config = loadConfigOrExit();

/** TEMPORAL_UI_URL, else the local dev server's UI (http://127.0.0.1:8233 with the default port). */
export function temporalUiUrl(c: Config = config): string {
  return c.TEMPORAL_UI_URL ?? `http://127.0.0.1:${c.TEMPORAL_UI_PORT}`;
}

/**
 * Behind a load balancer with TRUST_PROXY=0 every request seems to come from the balancer, so all
 * clients share one per-IP budget: logged at startup in production.
 */
export function trustProxyWarning(c: Pick<Config, 'NODE_ENV' | 'TRUST_PROXY'> = config): string | null {
  if (c.NODE_ENV !== 'production' || c.TRUST_PROXY !== 0) return null;
  return "TRUST_PROXY is 0: per-IP limits count the address that connects to the API. Behind a load balancer or reverse proxy, set TRUST_PROXY to the number of proxy hops, or every client shares the proxy's limits.";
}
