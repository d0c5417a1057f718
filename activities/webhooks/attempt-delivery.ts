import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { OutboxEvent, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { buildEnvelope } from '../../contracts/webhook-envelope';
import { disableEndpoint } from '../../domain/webhooks/disable-endpoint';
import { postWebhook, type PostResult } from '../../lib/webhooks/post-webhook';
import { signatureHeaders } from '../../lib/webhooks/signature';
import { TargetRefusedError } from '../../lib/webhooks/target-guard';
import type { ScopeRef } from '../../workflows/types';

export interface AttemptInput extends ScopeRef {
  deliveryId: string;
  /** When the workflow will try again if this attempt fails (null on the last one); shown in the log. */
  nextAttemptAt: string | null;
}

export type AttemptResult = { outcome: 'succeeded'; statusCode: number } | { outcome: 'stopped'; reason: string };

const SNIPPET_BYTES = 1024;
const snippet = (body: string) => Buffer.from(body, 'utf8').subarray(0, SNIPPET_BYTES).toString('utf8');

/** Secrets that sign now: the current one, and the previous one during the 24 h after a rotation. */
function signingSecrets(endpoint: WebhookEndpoint, now = new Date()): string[] {
  const previousValid = endpoint.previousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return previousValid ? [endpoint.secret, endpoint.previousSecret as string] : [endpoint.secret];
}

/**
 * The delivery with its endpoint and event (either null when deleted) in one statement: an attempt
 * read them one query each, with the row written back by TypeORM's save (a SELECT and an UPDATE),
 * six statements a delivery where two do (`npm run bench`, T6).
 */
async function deliveryWithEndpointAndEvent(data: ScopedData, deliveryId: string) {
  const [row] = await data.sql(
    (q) => `SELECT ${q.columns(WebhookDelivery, 'd', 'd_')}, ${q.columns(WebhookEndpoint, 'w', 'w_')}, ${q.columns(OutboxEvent, 'e', 'e_')}
      FROM ${q.from(WebhookDelivery, 'd')}
      LEFT JOIN ${q.from(WebhookEndpoint, 'w')} ON w.id = d.endpoint_id
      LEFT JOIN ${q.from(OutboxEvent, 'e')} ON e.id = d.event_id
      WHERE d.id = ${q.value(deliveryId)}`,
  );
  if (!row) return null;
  return {
    delivery: data.entity(WebhookDelivery, row, 'd_'),
    endpoint: row.w_id === null ? null : data.entity(WebhookEndpoint, row, 'w_'),
    event: row.e_id === null ? null : data.entity(OutboxEvent, row, 'e_'),
  };
}

/**
 * One HTTP attempt, always logged. Success returns; a retryable failure (network error, timeout,
 * non-2xx) throws a retryable failure for the workflow's schedule; 410 Gone and a target refused
 * as SSRF throw non-retryable failures. A disabled or deleted endpoint stops the delivery.
 */
export function attemptWebhookDelivery(db: DataSource, opts: { allowPrivateTargets: boolean }) {
  return async ({ tenantId, environment, deliveryId, nextAttemptAt }: AttemptInput): Promise<AttemptResult> => {
    const scope: TenantScope = { tenantId, environment };
    const data = new ScopedData(db.manager, scope);
    const found = await deliveryWithEndpointAndEvent(data, deliveryId);
    if (!found) return { outcome: 'stopped', reason: 'Delivery no longer exists' };
    const { delivery, endpoint, event } = found;
    if (!endpoint) return { outcome: 'stopped', reason: 'Endpoint was deleted' };
    if (endpoint.status !== 'active') return { outcome: 'stopped', reason: 'Endpoint is disabled' };
    if (!event) return { outcome: 'stopped', reason: 'Event no longer exists' };

    const envelope = buildEnvelope(event);
    const body = JSON.stringify(envelope);
    const headers = signatureHeaders({
      eventId: envelope.id,
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secrets: signingSecrets(endpoint),
    });
    const started = Date.now();
    let result: PostResult | null = null;
    let error: unknown = null;
    try {
      result = await postWebhook({ url: endpoint.url, headers, body, allowPrivate: opts.allowPrivateTargets });
    } catch (err) {
      error = err;
    }

    const ok = result !== null && result.statusCode >= 200 && result.statusCode < 300;
    const errorText = error ? (error as Error).message : ok ? null : `Receiver answered HTTP ${result?.statusCode}`;
    const attemptNumber = delivery.attempts + 1;
    // The attempt's log row and the delivery's new state in one statement.
    await data.sql(
      (q) => `WITH attempt AS (${q.insert(WebhookDeliveryAttempt, {
        deliveryId,
        attemptNumber,
        statusCode: result?.statusCode ?? null,
        latencyMs: result?.latencyMs ?? Date.now() - started,
        responseSnippet: result ? snippet(result.body) : null,
        error: errorText,
      })})
      UPDATE ${q.table(WebhookDelivery)} SET attempts = ${q.value(attemptNumber)}, last_status_code = ${q.value(result?.statusCode ?? null)}::int,
        last_error = ${q.value(errorText)}::text, status = ${q.value(ok ? 'succeeded' : 'pending')},
        completed_at = ${ok ? 'now()' : 'NULL'}, next_attempt_at = ${q.value(ok || !nextAttemptAt ? null : nextAttemptAt)}::timestamptz,
        updated_at = now()
      WHERE ${q.scope()} AND id = ${q.value(deliveryId)}`,
    );

    if (ok) return { outcome: 'succeeded', statusCode: result!.statusCode };
    if (error instanceof TargetRefusedError)
      throw ApplicationFailure.nonRetryable(`Target refused: ${error.message}`, 'WebhookTargetRefused');
    if (result?.statusCode === 410) {
      await disableEndpoint(db, scope, endpoint.id, 'The receiver answered 410 Gone');
      throw ApplicationFailure.nonRetryable('Receiver answered 410 Gone; endpoint disabled', 'WebhookEndpointGone');
    }
    throw ApplicationFailure.retryable(errorText ?? 'Delivery failed', 'WebhookDeliveryFailed');
  };
}
