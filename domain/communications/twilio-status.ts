import type { DataSource } from 'typeorm';
import { IsNull } from 'typeorm';
import { Message } from '../../db/entities';
import type { Environment } from '../../db/entities/tenant-owned';
import { unscoped } from '../../db/unscoped';
import type { Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { unitOfWork } from '../unit-of-work';
import { failUndeliveredMessage } from './fail-message';

/** Where Twilio posts an SMS's later statuses: every send names it as its StatusCallback. */
export const TWILIO_STATUS_PATH = '/v1/providers/twilio/status';

/** The exact URL Twilio is given, and signs its callbacks with (a trailing slash in the base is not doubled). */
export const twilioStatusCallbackUrl = (publicBaseUrl: string): string => `${publicBaseUrl.replace(/\/+$/, '')}${TWILIO_STATUS_PATH}`;

/** What the API needs to check a callback: the service's one Twilio account and the address Twilio calls. */
export interface TwilioCallbackSettings {
  accountSid: string;
  authToken: string;
  publicBaseUrl: string;
}

/** Unset (callbacks answered 404) unless the account, its auth token and PUBLIC_BASE_URL are all configured. */
export function twilioCallbackSettingsFromConfig(c: Config): TwilioCallbackSettings | undefined {
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, PUBLIC_BASE_URL: publicBaseUrl } = c;
  return accountSid && authToken && publicBaseUrl ? { accountSid, authToken, publicBaseUrl } : undefined;
}

export interface TwilioStatusReport {
  messageSid: string;
  status: string;
  errorCode?: string;
}

/**
 * What a callback did: moved the message to failed or recorded its delivery (each at most once per
 * message), changed nothing (a non-final status, a repeat, a notice after the outcome was known),
 * or named no message of ours.
 */
export type TwilioStatusOutcome = 'failed' | 'delivered' | 'unchanged' | 'unknown_message';

/** Twilio's final failures: the carrier refused it, or it could not be handed to the carrier. */
const FAILURES = new Set(['failed', 'undelivered']);

const failureReason = ({ status, errorCode }: TwilioStatusReport) =>
  `Twilio reported the SMS ${status} after accepting it` +
  (errorCode ? ` (error ${errorCode}: https://www.twilio.com/docs/api/errors/${errorCode})` : ' (no error code given)');

/** The SMS with this SID, in whichever tenant sent it: a system notice names no tenant. */
async function findBySid(db: DataSource, sid: string) {
  // Cross-tenant by design, the SID alone (ix_messages_sms_provider_id); everything after is scoped.
  const rows = await unscoped(db).rows<{ id: string; tenant_id: string; environment: Environment }>(
    `SELECT id::text, tenant_id::text, environment FROM messages WHERE channel = 'sms' AND provider_message_id = $1 LIMIT 2`,
    [sid],
  );
  // Twilio's SIDs are unique; two rows would mean a SID stored twice, and acting on either could touch the wrong tenant.
  if (rows.length > 1)
    logger.error({ messageSid: sid }, 'Twilio status callback: this SID is stored on more than one message; nothing changed');
  return rows.length === 1 ? rows[0] : null;
}

/**
 * Applies one of Twilio's status callbacks to the SMS it names. `failed` / `undelivered` move a
 * sent, undelivered message to failed with `sms.failed`; `delivered` sets `deliveredAt` with
 * `sms.delivered`. Each is a guarded UPDATE whose winner alone emits, in the same transaction, so
 * Twilio's retries and repeats report once, and whichever final status arrives first wins (a late
 * `sent` or `failed` after `delivered` changes nothing). Other statuses (queued, sending, sent, ...)
 * change nothing and are not looked up.
 */
export async function applyTwilioStatus(
  deps: { db: DataSource; workflows: WorkflowStarter },
  report: TwilioStatusReport,
): Promise<TwilioStatusOutcome> {
  const failure = FAILURES.has(report.status);
  if (!failure && report.status !== 'delivered') return 'unchanged';
  const found = await findBySid(deps.db, report.messageSid);
  if (!found) {
    // Answered 2xx all the same: Twilio cannot make the SID known by retrying it (docs/decisions.md).
    logger.warn({ messageSid: report.messageSid, status: report.status }, 'Twilio status callback for no stored SMS; ignored');
    return 'unknown_message';
  }
  const scope = { tenantId: found.tenant_id, environment: found.environment };
  return unitOfWork({ db: deps.db, workflows: deps.workflows, scope }, async (tx) => {
    const message = await tx.repo(Message).findById(found.id);
    if (!message) return 'unknown_message';
    if (failure) return (await failUndeliveredMessage(tx, message, failureReason(report))) ? 'failed' : 'unchanged';
    const deliveredAt = new Date();
    const changed = await tx.repo(Message).updateWhere({ id: message.id, status: 'sent', deliveredAt: IsNull() }, { deliveredAt });
    if (!changed) return 'unchanged';
    await tx.emit('sms.delivered', {
      messageId: message.id,
      leadId: message.leadId,
      campaignId: message.campaignId,
      occurredAt: deliveredAt,
    });
    return 'delivered';
  });
}
