import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { deliverMessage } from './deliver-message';
import { failMessage } from './fail-message';
import { reconcileSmsStatuses } from './reconcile-sms-statuses';
import type { MessagingSettings } from './settings';

export function createMessagingActivities(db: DataSource, workflows: WorkflowStarter, settings: MessagingSettings) {
  return {
    deliverMessage: deliverMessage(db, workflows, settings),
    failMessage: failMessage(db, workflows, settings),
    reconcileSmsStatuses: reconcileSmsStatuses(db, workflows, settings),
  };
}

export type MessagingActivities = ReturnType<typeof createMessagingActivities>;
