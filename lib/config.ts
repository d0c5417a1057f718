import { z } from 'zod';

/**
 * The only reader of process.env. Parsed once; everything else imports `config`.
 * Empty strings count as unset so `FOO= npm start` behaves like no FOO at all.
 */
const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
const booleanString = z
  .preprocess((v) => (v === '' ? undefined : v), z.enum(['true', 'false']).default('false'))
  .transform((v) => v === 'true');

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

  ID_SECRET: z.string().min(8).default('dev-id-secret-change-me'),
  JWT_SECRET: z.string().min(16).default('dev-jwt-secret-change-me-please'),
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
  FILE_URL_SECRET: z.string().min(16).default('dev-file-url-secret-change-me'),
  S3_BUCKET: optionalString,
  S3_REGION: z.string().default('us-east-1'),
  /** For S3-compatible services (MinIO, R2, moto); unset means AWS. */
  S3_ENDPOINT: optionalString,
  /** Without both keys the AWS default credential chain applies (instance role, AWS_PROFILE, ...). */
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  /** Bucket in the path instead of the host name: most S3-compatible services need it. */
  S3_FORCE_PATH_STYLE: booleanString,

  /** Dev and tests only: lets webhook endpoints point at private, loopback or link-local addresses. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanString,
  /** How often the outbox sweep runs, and how old an undispatched event must be before it takes it (DESIGN 9). */
  WEBHOOK_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).default(60_000),
  WEBHOOK_SWEEP_MIN_AGE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Delays before each delivery attempt, comma-separated ms; unset: the schedule of DESIGN 9 (about 28 h). */
  WEBHOOK_RETRY_DELAYS_MS: z.preprocess(
    (v) => (v === '' || v === undefined ? undefined : String(v).split(',').map(Number)),
    z.array(z.number().int().min(0)).min(1).optional(),
  ),
  /**
   * Tests only (crash scenarios): the API waits this long between committing a change with its
   * outbox event and starting the delivery workflows, so a test can kill it inside that window.
   */
  TEST_RELAY_DELAY_MS: z.coerce.number().int().min(0).default(0),
  // AI generation (spec 4.2): no key means the deterministic templates answer.
  AI_API_KEY: optionalString,
  AI_MODEL: z.string().default('gpt-4o-mini'),
  AI_BASE_URL: optionalString,
  AI_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  AI_RESPONSE_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  // Email and SMS (DESIGN 8): without SMTP_URL / TWILIO_* (and always in sandbox) a capture transport records messages.
  SMTP_URL: optionalString,
  EMAIL_FROM: z.string().default('Campaigns <campaigns@localhost>'),
  TWILIO_ACCOUNT_SID: optionalString,
  TWILIO_AUTH_TOKEN: optionalString,
  TWILIO_FROM: optionalString,
  /** Replaces https://<product>.twilio.com (a local stand-in in tests, a proxy in some deployments). */
  TWILIO_API_BASE_URL: optionalString,
  /** Signs open, click and unsubscribe tokens. */
  TRACKING_SECRET: z.string().min(16).default('dev-tracking-secret-change-me'),

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
  /** Opens and clicks one tenant may have waiting in an API process's buffer; past it that tenant's new hits are dropped. */
  TRACKING_BUFFER_PER_TENANT: z.coerce.number().int().min(1).default(10_000),
  /** Webhook endpoints one tenant may have per environment; one more is a 422. */
  WEBHOOK_ENDPOINTS_MAX: z.coerce.number().int().min(1).default(20),
});

/** Rules across variables, checked at startup rather than on first use. */
export const ConfigSchema = EnvSchema.superRefine((c, ctx) => {
  if (c.FILES_DRIVER === 's3' && !c.S3_BUCKET)
    ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when FILES_DRIVER=s3' });
  if (!c.S3_ACCESS_KEY_ID !== !c.S3_SECRET_ACCESS_KEY) {
    ctx.addIssue({ code: 'custom', path: ['S3_SECRET_ACCESS_KEY'], message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together' });
  }
});

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export const config: Config = loadConfig();

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
