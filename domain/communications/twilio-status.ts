import type { DataSource } from 'typeorm';
import { IsNull, Not } from 'typeorm';
import { Message } from '../../db/entities';
import type { Environment } from '../../db/entities/tenant-owned';
import { unscoped } from '../../db/unscoped';
import type { Config } from '../../lib/config';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { unitOfWork } from '../unit-of-work';
import { failUndeliveredMessage } from './fail-message';
import { markMessageSent } from './mark-sent';

/** Where Twilio posts an SMS's later statuses: every send names it as its StatusCallback. */
export const TWILIO_STATUS_PATH = '/v1/providers/twilio/status';

/** The exact URL Twilio is given, and signs its callbacks with (a trailing slash in the base is not doubled). */
export const twilioStatusCallbackUrl = (publicBaseUrl: string): string => `${publicBaseUrl.replace(/\/+$/, '')}${TWILIO_STATUS_PATH}`;

/** The query parameter of a StatusCallback URL that names our message (its encoded ID). */
export const TWILIO_MESSAGE_ID_PARAM = 'messageId';

/**
 * The StatusCallback one SMS is created with: the callback URL naming the message, so its statuses
 * find it before the send has stored Twilio's SID (Twilio calls back within milliseconds of
 * answering). Twilio signs the full URL, so the ID cannot be changed without the auth token.
 * Encoded IDs are alphanumeric: the URL needs no escaping and reads back exactly as written.
 */
export const twilioStatusCallbackFor = (callbackUrl: string, encodedMessageId: string): string =>
  `${callbackUrl}?${TWILIO_MESSAGE_ID_PARAM}=${encodedMessageId}`;

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
  /** The message the signed callback URL names (a database key); absent for sends made before URLs named one. */
  messageId?: string;
}

/**
 * What a callback did: moved the message to failed or recorded its delivery (each at most once per
 * message), changed nothing (a non-final status, a repeat, a notice after the outcome was known),
 * or named no message of ours.
 */
export type TwilioStatusOutcome = 'failed' | 'delivered' | 'unchanged' | 'unknown_message';

/**
 * Twilio's final failures: the carrier refused it, it could not be handed to the carrier, or it was
 * canceled before Twilio sent it (a scheduled message canceled in Twilio's console or API).
 */
const FAILURES = new Set(['failed', 'undelivered', 'canceled']);

/** The statuses that settle an SMS (Twilio's `delivered` is final too); the others change nothing here. */
export const isFinalTwilioStatus = (status: string): boolean => FAILURES.has(status) || status === 'delivered';

const failureReason = ({ status, errorCode }: TwilioStatusReport) =>
  `Twilio reported the SMS ${status} after accepting it` +
  (errorCode ? ` (error ${errorCode}: https://www.twilio.com/docs/api/errors/${errorCode})` : ' (no error code given)');

/** An SMS as found across tenants: its key and the scope every write to it runs in. */
export type FoundMessage = { id: string; tenant_id: string; environment: Environment };

/** The SMS the callback URL names, in whichever tenant sent it: its ID is the key, the scope comes from its row. */
async function findById(db: DataSource, id: string): Promise<FoundMessage | null> {
  // Cross-tenant by design, as findBySid: Twilio's signature over the URL vouches for the ID; everything after is scoped.
  const [row] = await unscoped(db).rows<FoundMessage>(
    `SELECT id::text, tenant_id::text, environment FROM messages WHERE id = $1 AND channel = 'sms'`,
    [id],
  );
  return row ?? null;
}

/** The SMS with this SID, in whichever tenant sent it: a system notice names no tenant. */
async function findBySid(db: DataSource, sid: string): Promise<FoundMessage | null> {
  // Cross-tenant by design, the SID alone (ix_messages_sms_provider_id); everything after is scoped.
  const rows = await unscoped(db).rows<FoundMessage>(
    `SELECT id::text, tenant_id::text, environment FROM messages WHERE channel = 'sms' AND provider_message_id = $1 LIMIT 2`,
    [sid],
  );
  // Twilio's SIDs are unique; two rows would mean a SID stored twice, and acting on either could touch the wrong tenant.
  if (rows.length > 1)
    logger.error({ messageSid: sid }, 'Twilio status callback: this SID is stored on more than one message; nothing changed');
  return rows.length === 1 ? rows[0] : null;
}

/**
 * Applies one of Twilio's status callbacks to the SMS it names: by the message ID in the callback
 * URL when it has one, else (sends made before URLs named it) by Twilio's SID. `failed` /
 * `undelivered` / `canceled` move a sent, undelivered message to failed with `sms.failed`; `delivered` sets
 * `deliveredAt` with `sms.delivered`. Each is a guarded UPDATE whose winner alone emits, in the
 * same transaction, so Twilio's retries and repeats report once, and whichever final status arrives
 * first wins (a late `sent` or `failed` after `delivered` changes nothing). Other statuses (queued,
 * sending, sent, ...) change nothing and are not looked up.
 *
 * A final status can arrive before the send has marked the message sent (the SID is stored with
 * `sent`): Twilio accepted it, so the callback marks it sent first, with the SID and `sms.sent`, as
 * the send would have (markMessageSent: whichever of the two moves it emits), then applies the
 * status. A message stored with another SID than the callback's is left alone (logged).
 */
export async function applyTwilioStatus(
  deps: { db: DataSource; workflows: WorkflowStarter },
  report: TwilioStatusReport,
): Promise<TwilioStatusOutcome> {
  if (!isFinalTwilioStatus(report.status)) return 'unchanged';
  const found = report.messageId ? await findById(deps.db, report.messageId) : await findBySid(deps.db, report.messageSid);
  if (!found) {
    // Answered 2xx all the same: Twilio cannot make the message known by retrying it (docs/decisions.md).
    const { messageSid, messageId, status } = report;
    logger.warn({ messageSid, messageId, status }, 'Twilio status callback for no stored SMS; ignored');
    return 'unknown_message';
  }
  return applyTwilioStatusTo(deps, found, report);
}

/**
 * Applies a Twilio status to the SMS `found` names, within that message's scope: what a callback
 * does once it has found the message, and what the status sweep does with a status it fetched
 * (reconcile-sms-statuses.ts), so both are the same guarded UPDATEs and whichever comes first wins.
 */
export async function applyTwilioStatusTo(
  deps: { db: DataSource; workflows: WorkflowStarter },
  found: FoundMessage,
  report: TwilioStatusReport,
): Promise<TwilioStatusOutcome> {
  if (!isFinalTwilioStatus(report.status)) return 'unchanged';
  const failure = FAILURES.has(report.status);
  const scope = { tenantId: found.tenant_id, environment: found.environment };
  return unitOfWork({ db: deps.db, workflows: deps.workflows, scope }, async (tx) => {
    const message = await tx.repo(Message).findById(found.id);
    if (!message) return 'unknown_message';
    const sid = report.messageSid;
    if (message.providerMessageId !== null && message.providerMessageId !== sid) {
      // The URL's message was sent as another SMS: this status is not its own.
      logger.warn({ messageSid: sid, messageId: message.id }, 'Twilio status names a message stored with another SID; ignored');
      return 'unchanged';
    }
    if (message.status === 'queued') {
      // Only a send that reached Twilio (its marker written before the call) can be reported on.
      await markMessageSent(tx, message, { providerMessageId: sid }, { providerAttemptedAt: Not(IsNull()) });
    } else if (message.providerMessageId === null && message.status === 'sent') {
      // Marked sent without its SID (a send that stopped between Twilio's answer and storing it): now known.
      await tx.repo(Message).updateWhere({ id: message.id, providerMessageId: IsNull() }, { providerMessageId: sid });
    }
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
