import type { DataSource } from 'typeorm';
import type { TrackingSettings } from '../../domain/communications/compose-email';
import { createDomainContext, type DomainContext, type WebhookDomainOptions } from '../../domain/context';
import type { TrackingHits } from '../../domain/engagement/tracking-hits';
import type { FileSettings } from '../../lib/files/create-storage';
import type { RateLimiter } from '../../lib/rate-limit/limiter';
import type { ApiKeyCache } from '../auth/key-cache';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { AuthContext } from './context';
import type { PendingAudit } from '../../domain/pending-audit';
import type { DnsSettings } from '../../lib/dns';
import type { TwilioCallbackSettings } from '../../domain/communications/twilio-status';

export interface AppDeps {
  db: DataSource;
  workflows: WorkflowStarter;
  limiter: RateLimiter;
  keyCache: ApiKeyCache;
  /** Open and click hits, recorded in batches. */
  trackingHits: TrackingHits;
  /** Webhook settings from config (absent: private targets refused); relay hooks are for tests. */
  webhooks?: WebhookDomainOptions;
  /** How long AI generation endpoints wait for their workflow before answering with a template. */
  aiResponseTimeoutMs: number;
  /** Requests of one tenant and environment that run at once (api/middleware/tenant-fair-share.ts). */
  tenantMaxInFlight: number;
  /** The same while other tenants also send requests. */
  tenantSharedMaxInFlight: number;
  /** Signs and checks open/click/unsubscribe tokens. */
  tracking: TrackingSettings;
  /** Where file bytes live. */
  files: FileSettings;
  /** Where sending domains' DKIM records are looked up (POST /v1/communications/dkim-keys/:id/verify). */
  dkimDns: DnsSettings;
  /** Checks Twilio's status callbacks (absent: not configured, the callback route answers 404). */
  twilio?: TwilioCallbackSettings;
}

/** Settings createApp reads from config when the entry point (or a test) leaves them out. */
type ConfigDefaulted =
  'aiResponseTimeoutMs' | 'tenantMaxInFlight' | 'tenantSharedMaxInFlight' | 'tracking' | 'files' | 'dkimDns' | 'twilio';

/** What createApp builds itself. */
type BuiltByApp = 'limiter' | 'keyCache' | 'trackingHits';

/** What an entry point hands createApp: the clients, and settings that override config. */
export type AppServices = Omit<AppDeps, BuiltByApp | ConfigDefaulted> & Partial<Pick<AppDeps, ConfigDefaulted>>;

/** The request's fair-share hooks (RequestContext) become the domain's waits; `readOnly` for GET and HEAD. */
export function domainContext(
  deps: AppDeps,
  auth: AuthContext,
  fairShare: { leaveFairShare?: () => void; leaveFairShareWhileAlone?: () => void } = {},
  audit?: PendingAudit,
  readOnly = false,
): DomainContext {
  return createDomainContext({
    db: deps.db,
    workflows: deps.workflows,
    scope: { tenantId: auth.tenantId, environment: auth.environment },
    actorUserId: auth.actorUserId,
    webhooks: deps.webhooks,
    beforeLongWait: fairShare.leaveFairShare,
    beforeGroupWait: fairShare.leaveFairShareWhileAlone,
    beforeReadGroupWait: readOnly ? fairShare.leaveFairShareWhileAlone : undefined,
    audit,
  });
}
