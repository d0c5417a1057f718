import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createAiActivities } from './ai';
import type { AiSettings } from './ai/settings';
import { createCampaignActivities } from './campaigns';
import { createCampaignTransitionActivities } from './campaigns/signal-enrollment-page';
import { createFileActivities } from './files';
import { createOperationActivities } from './operations';
import type { FileStorage } from '../lib/files/file-storage';
import { createMessagingActivities } from './messaging';
import type { MessagingSettings } from './messaging/settings';
import { createHousekeepingActivities } from './housekeeping';
import { createLeadActivities } from './leads';
import { createLeadImportActivities } from './leads/import-leads';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';
import { createRecoverActivities } from './webhooks/recover-page';

export interface ActivityDeps {
  db: DataSource;
  /** Activities that fan out (the webhook outbox sweep) start workflows through it. */
  workflows: WorkflowStarter;
  webhooks: WebhookActivityOptions;
  /** Unset: AI generation answers with its templates. */
  ai?: AiSettings;
  /** createWorker reads them from config when left out (capture transports unless SMTP_URL / TWILIO_* are set). */
  messaging: MessagingSettings;
  /** Where file bytes live (createWorker reads them from config when left out); the pending-upload sweep removes them. */
  files: FileStorage;
}

/** Activities are built from their clients; the worker is the only place that constructs them. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createLeadActivities(deps.db, deps.workflows),
    ...createHousekeepingActivities(deps.db),
    ...createWebhookActivities(deps.db, deps.workflows, deps.webhooks),
    ...createAiActivities(deps.ai),
    ...createCampaignActivities(deps.db, deps.workflows),
    ...createCampaignTransitionActivities(deps.db, deps.workflows.client),
    ...createOperationActivities(deps.db),
    ...createRecoverActivities(deps.db, deps.workflows),
    ...createFileActivities(deps.db, deps.files),
    ...createLeadImportActivities(deps.db, deps.workflows, deps.files),
    ...createMessagingActivities(deps.db, deps.workflows, deps.messaging),
  };
}

export type Activities = ReturnType<typeof createActivities>;
