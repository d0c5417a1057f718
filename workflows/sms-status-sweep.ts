import { proxyActivities } from '@temporalio/workflow';
import type { MessagingActivities } from '../activities/messaging';

const { reconcileSmsStatuses } = proxyActivities<MessagingActivities>({
  // A pass asks Twilio about up to `limit` messages one by one, each request bounded (sms-status-lookup.ts).
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 3 },
});

/** A callback usually comes within seconds of the final status: only one 15 minutes overdue is asked about. */
export const DEFAULT_SMS_STATUS_MIN_AGE_MS = 15 * 60_000;
/**
 * After 72 hours the sweep gives up: an SMS's validity period is at most 10 hours (Twilio's
 * ValidityPeriod), so a status not final by then stays as it is (Twilio keeps the record far longer).
 */
export const DEFAULT_SMS_STATUS_MAX_AGE_MS = 72 * 3600_000;
/** Twilio answered a non-final status (queued, sending, sent): asked again an hour later, at most ~72 times per SMS. */
export const DEFAULT_SMS_STATUS_RECHECK_MS = 3600_000;
/** Messages asked about per pass; the next pass (10 minutes on) takes the rest. */
export const DEFAULT_SMS_STATUS_LIMIT = 500;

export interface SmsStatusSweepInput {
  minAgeMs?: number;
  maxAgeMs?: number;
  recheckAfterMs?: number;
  limit?: number;
}

/**
 * Run by a Temporal Schedule every 10 minutes where Twilio is configured: asks Twilio for the
 * status of sent SMS whose final status never reached us (a callback lost or answered 5xx) and
 * records it as the callback would have.
 */
export async function smsStatusSweepWorkflow(input: SmsStatusSweepInput = {}) {
  return reconcileSmsStatuses({
    minAgeMs: input.minAgeMs ?? DEFAULT_SMS_STATUS_MIN_AGE_MS,
    maxAgeMs: input.maxAgeMs ?? DEFAULT_SMS_STATUS_MAX_AGE_MS,
    recheckAfterMs: input.recheckAfterMs ?? DEFAULT_SMS_STATUS_RECHECK_MS,
    limit: input.limit ?? DEFAULT_SMS_STATUS_LIMIT,
  });
}
