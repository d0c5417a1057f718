import type { DataSource } from 'typeorm';
import { IsNull } from 'typeorm';
import { Message } from '../../db/entities';
import type { Environment } from '../../db/entities/tenant-owned';
import { scoped } from '../../db/scoped-repository';
import { unscoped } from '../../db/unscoped';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { applyTwilioStatusTo, isFinalTwilioStatus } from './twilio-status';

/** What Twilio answered when asked for one SMS's status. */
export type SmsStatusAnswer =
  | { kind: 'status'; status: string; errorCode?: string }
  /** Twilio has no such message (404), or refuses to show this one for good: it is never asked about again. */
  | { kind: 'gone'; reason: string }
  /** A 5xx, a 429, a timeout, a broken connection: the next pass asks again. */
  | { kind: 'transient'; reason: string };

/** Asks the provider for one SMS's status by its SID; throws only for what no later message can escape (bad credentials). */
export type SmsStatusLookup = (sid: string) => Promise<SmsStatusAnswer>;

export interface SmsStatusSweepOptions {
  /** Younger sends may still get their callback: left to it. */
  minAgeMs: number;
  /** Older sends are given up on: a status not final by then will not become so. */
  maxAgeMs: number;
  /** A message Twilio reported non-final is asked about again only this long after. */
  recheckAfterMs: number;
  /** Messages asked about in one pass at most; the next pass takes the rest. */
  limit: number;
}

export interface SmsStatusSweepResult {
  /** Messages Twilio answered for. */
  checked: number;
  delivered: number;
  failed: number;
  /** Twilio's answer was not final (still queued, sending or sent), or the outcome was already recorded. */
  unchanged: number;
  /** Twilio has no such message: no longer checked (status_check_error). */
  stopped: number;
  /** Twilio could not answer now: left for the next pass. */
  deferred: number;
}

/** Rows read per query: the pass walks its window in pages of this many, by send time. */
const PAGE = 100;
/** Transient errors that end a pass: Twilio is struggling, and the rest waits for the next one rather than time out one by one. */
const MAX_TRANSIENT_ERRORS = 3;

type DueMessage = { id: string; tenant_id: string; environment: Environment; sid: string; sent_at: string };

/**
 * Sent SMS still waiting for a final status, sent between `maxAgeMs` and `minAgeMs` ago, never
 * asked about or not since `recheckAfterMs`, across tenants, after the cursor (send time, ID). The
 * conditions repeat the partial index ix_messages_sms_unreconciled's (db/entities/message.ts), so
 * the pass reads that small index in order and never the table. `NOT sandbox`: the capture
 * transport's messages carry a `capture-` ID Twilio never gave.
 */
export const DUE_SMS_SQL = `SELECT m.id::text AS id, m.tenant_id::text AS tenant_id, m.environment, m.provider_message_id AS sid, m.sent_at::text AS sent_at
   FROM messages m
  WHERE m.channel = 'sms' AND m.status = 'sent' AND m.delivered_at IS NULL AND NOT m.sandbox
    AND m.provider_message_id IS NOT NULL AND m.status_check_error IS NULL
    AND m.sent_at < now() - make_interval(secs => $1::double precision / 1000)
    AND m.sent_at > now() - make_interval(secs => $2::double precision / 1000)
    AND (m.status_checked_at IS NULL OR m.status_checked_at < now() - make_interval(secs => $3::double precision / 1000))
    AND (m.sent_at, m.id) > ($4::timestamptz, $5::bigint)
  ORDER BY m.sent_at, m.id
  LIMIT $6`;

/**
 * Reconciles SMS whose final status never reached us (a callback answered 5xx, or never sent):
 * asks Twilio for each due message's status and applies a final one through the callback's own
 * path (applyTwilioStatusTo: the same guarded UPDATEs and events, in the message's tenant scope),
 * so a callback that arrives late, or races this pass, reports once and the first final status
 * wins. A non-final answer records only when it was asked (`status_checked_at`); Twilio not
 * knowing the message records why and stops asking (`status_check_error`); a transient failure
 * records nothing, so the next pass asks again. Every write is guarded or idempotent: a pass run
 * twice, or stopped halfway and run again, changes nothing more.
 */
export async function reconcileSmsStatuses(
  deps: { db: DataSource; workflows: WorkflowStarter },
  lookup: SmsStatusLookup,
  opts: SmsStatusSweepOptions,
): Promise<SmsStatusSweepResult> {
  const result: SmsStatusSweepResult = { checked: 0, delivered: 0, failed: 0, unchanged: 0, stopped: 0, deferred: 0 };
  let cursor = { sentAt: '-infinity', id: '0' };
  let seen = 0;
  while (seen < opts.limit && result.deferred < MAX_TRANSIENT_ERRORS) {
    // A sweep over every tenant: the one cross-tenant door; each write below is scoped to its message's tenant.
    const due = await unscoped(deps.db).rows<DueMessage>(DUE_SMS_SQL, [
      opts.minAgeMs,
      opts.maxAgeMs,
      opts.recheckAfterMs,
      cursor.sentAt,
      cursor.id,
      Math.min(PAGE, opts.limit - seen),
    ]);
    for (const message of due) {
      seen++;
      cursor = { sentAt: message.sent_at, id: message.id };
      await reconcileOne(deps, lookup, message, result);
      if (result.deferred >= MAX_TRANSIENT_ERRORS) break;
    }
    if (due.length < PAGE) break;
  }
  if (seen) logger.info({ ...result }, 'SMS status sweep: asked Twilio for overdue statuses');
  return result;
}

async function reconcileOne(
  deps: { db: DataSource; workflows: WorkflowStarter },
  lookup: SmsStatusLookup,
  message: DueMessage,
  result: SmsStatusSweepResult,
): Promise<void> {
  const answer = await lookup(message.sid);
  const repo = scoped(deps.db.manager, Message, { tenantId: message.tenant_id, environment: message.environment });
  if (answer.kind === 'transient') {
    result.deferred++;
    logger.warn(
      { messageId: message.id, messageSid: message.sid, reason: answer.reason },
      'SMS status sweep: Twilio did not answer; next pass',
    );
    return;
  }
  if (answer.kind === 'gone') {
    result.stopped++;
    logger.warn({ messageId: message.id, messageSid: message.sid, reason: answer.reason }, 'SMS status sweep: no longer checking this SMS');
    await repo.updateWhere(
      { id: message.id, statusCheckError: IsNull() },
      { statusCheckedAt: new Date(), statusCheckError: answer.reason },
    );
    return;
  }
  result.checked++;
  if (isFinalTwilioStatus(answer.status)) {
    const found = { id: message.id, tenant_id: message.tenant_id, environment: message.environment };
    const outcome = await applyTwilioStatusTo(deps, found, { messageSid: message.sid, status: answer.status, errorCode: answer.errorCode });
    if (outcome === 'delivered') result.delivered++;
    else if (outcome === 'failed') result.failed++;
    else result.unchanged++;
  } else {
    result.unchanged++;
  }
  // After the status: a pass stopped in between asks again, and applying it again changes nothing.
  await repo.updateWhere({ id: message.id }, { statusCheckedAt: new Date() });
}
