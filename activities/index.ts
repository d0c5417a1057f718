import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { config } from '../lib/config';
import { createAiActivities } from './ai';
import type { AiSettings } from './ai/settings';
import { createCampaignActivities } from './campaigns';
import { createMessagingActivities } from './messaging';
import { messagingSettingsFromConfig, type MessagingSettings } from './messaging/settings';
import { createRecordActivities } from './records';
import { createWebhookActivities, type WebhookActivityOptions } from './webhooks';

export interface ActivityDeps {
  db: DataSource;
  /** Activities that fan out (the webhook outbox sweep) start workflows through it. */
  workflows: WorkflowStarter;
  webhooks: WebhookActivityOptions;
  /** Unset: AI generation answers with its templates. */
  ai?: AiSettings;
  /** Unset: the settings from config (capture transports unless SMTP_URL / TWILIO_* are set). */
  messaging?: MessagingSettings;
}

/** Activities are built from their clients; the worker is the only place that constructs them. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createRecordActivities(deps.db, deps.workflows),
    ...createWebhookActivities(deps.db, deps.workflows, deps.webhooks),
    ...createAiActivities(deps.ai),
    ...createCampaignActivities(deps.db, deps.workflows),
    ...createMessagingActivities(deps.db, deps.workflows, deps.messaging ?? messagingSettingsFromConfig(config)),
  };
}

export type Activities = ReturnType<typeof createActivities>;
