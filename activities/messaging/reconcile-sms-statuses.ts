import type { DataSource } from 'typeorm';
import {
  reconcileSmsStatuses as reconcile,
  type SmsStatusSweepOptions,
  type SmsStatusSweepResult,
} from '../../domain/communications/reconcile-sms-statuses';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { MessagingSettings } from './settings';
import { twilioStatusLookup } from './sms-status-lookup';

/**
 * The SMS status sweep's activity: asks Twilio for the statuses of sent SMS whose callback is
 * overdue. Without Twilio configured there is nothing to ask (its schedule is not even created;
 * this covers one left from before, or a manual run). Idempotent: every write it makes is guarded.
 */
export function reconcileSmsStatuses(db: DataSource, workflows: WorkflowStarter, settings: MessagingSettings) {
  const lookup = settings.twilio ? twilioStatusLookup(settings.twilio) : null;
  return async (opts: SmsStatusSweepOptions): Promise<SmsStatusSweepResult> => {
    if (!lookup) {
      logger.info('SMS status sweep: Twilio is not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM); nothing to check');
      return { checked: 0, delivered: 0, failed: 0, unchanged: 0, stopped: 0, deferred: 0 };
    }
    return reconcile({ db, workflows }, lookup, opts);
  };
}
