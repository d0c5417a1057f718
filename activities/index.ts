import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { config } from '../lib/config';
import { createAiActivities } from './ai';
import type { AiSettings } from './ai/settings';
import { createCampaignActivities } from './campaigns';
import { createCampaignTransitionActivities } from './campaigns/signal-enrollment-page';
import { createFileActivities } from './files';
import { createOperationActivities } from './operations';
import { createFileStorage } from '../lib/files/create-storage';
import type { FileStorage } from '../lib/files/file-storage';
import { createMessagingActivities } from './messaging';
import { messagingSettingsFromConfig, type MessagingSettings } from './messaging/settings';
import { createRecordActivities } from './records';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';
import { createRecoverActivities } from './webhooks/recover-page';

export interface ActivityDeps {
  db: DataSource;
  /** Activities that fan out (the webhook outbox sweep) start workflows through it. */
  workflows: WorkflowStarter;
  webhooks: WebhookActivityOptions;
  /** Unset: AI generation answers with its templates. */
  ai?: AiSettings;
  /** Unset: the settings from config (capture transports unless SMTP_URL / TWILIO_* are set). */
  messaging?: MessagingSettings;
  /** Where file bytes live (unset: from config, as the API's); the pending-upload sweep removes them. */
  files?: FileStorage;
}

/** Activities are built from their clients; the worker is the only place that constructs them. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRecordActivities(deps.db, deps.workflows),
    ...createWebhookActivities(deps.db, deps.workflows, deps.webhooks),
    ...createAiActivities(deps.ai),
    ...createCampaignActivities(deps.db),
    ...createCampaignTransitionActivities(deps.db, deps.workflows.client),
    ...createOperationActivities(deps.db),
    ...createRecoverActivities(deps.db, deps.workflows),
    ...createFileActivities(deps.db, deps.files ?? createFileStorage(config)),
    ...createMessagingActivities(deps.db, deps.messaging ?? messagingSettingsFromConfig(config)),
  };
}

export type Activities = ReturnType<typeof createActivities>;
