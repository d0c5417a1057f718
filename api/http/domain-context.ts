import type { DataSource } from 'typeorm';
import type { TrackingSettings } from '../../domain/communications/compose-email';
import { createDomainContext, type DomainContext, type WebhookDomainOptions } from '../../domain/context';
import type { TrackingHits } from '../../domain/engagement/tracking-hits';
import type { FileSettings } from '../../domain/file-direct-transfers';
import type { RateLimiter } from '../../lib/rate-limit/limiter';
import type { ApiKeyCache } from '../auth/key-cache';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { AuthContext } from './context';

export interface AppDeps {
  db: DataSource;
  workflows: WorkflowStarter;
  limiter: RateLimiter;
  keyCache: ApiKeyCache;
  /** Open and click hits, recorded in batches. */
  trackingHits: TrackingHits;
  /** Webhook settings from config (absent: private targets refused); relay hooks are for tests. */
  webhooks?: WebhookDomainOptions;
  /** How long AI generation endpoints wait for their workflow before answering with a template (default AI_RESPONSE_TIMEOUT_MS). */
  aiResponseTimeoutMs?: number;
  /** Signs and checks open/click/unsubscribe tokens (default from config: TRACKING_SECRET, PUBLIC_BASE_URL). */
  tracking?: TrackingSettings;
  /** Where file bytes live (default from config: FILES_DRIVER, S3_*, FILE_URL_TTL_SECONDS). */
  files?: FileSettings;
}

export function domainContext(deps: AppDeps, auth: AuthContext): DomainContext {
  return createDomainContext({
    db: deps.db,
    workflows: deps.workflows,
    scope: { tenantId: auth.tenantId, environment: auth.environment },
    actorUserId: auth.actorUserId,
    webhooks: deps.webhooks,
  });
}
