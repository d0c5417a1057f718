import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { OutboxEvent, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
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
 * One HTTP attempt, always logged. Success returns; a retryable failure (network error, timeout,
 * non-2xx) throws a retryable failure for the workflow's schedule; 410 Gone and a target refused
 * as SSRF throw non-retryable failures. A disabled or deleted endpoint stops the delivery.
 */
export function attemptWebhookDelivery(db: DataSource, opts: { allowPrivateTargets: boolean }) {
  return async ({ tenantId, environment, deliveryId, nextAttemptAt }: AttemptInput): Promise<AttemptResult> => {
    const scope: TenantScope = { tenantId, environment };
    const deliveries = scoped(db.manager, WebhookDelivery, scope);
    const delivery = await deliveries.findById(deliveryId);
    if (!delivery) return { outcome: 'stopped', reason: 'Delivery no longer exists' };
    const endpoint = await scoped(db.manager, WebhookEndpoint, scope).findById(delivery.endpointId);
    if (!endpoint) return { outcome: 'stopped', reason: 'Endpoint was deleted' };
    if (endpoint.status !== 'active') return { outcome: 'stopped', reason: 'Endpoint is disabled' };
    const event = await scoped(db.manager, OutboxEvent, scope).findById(delivery.eventId);
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
    delivery.attempts += 1;
    await scoped(db.manager, WebhookDeliveryAttempt, scope).insert({
      deliveryId,
      attemptNumber: delivery.attempts,
      statusCode: result?.statusCode ?? null,
      latencyMs: result?.latencyMs ?? Date.now() - started,
      responseSnippet: result ? snippet(result.body) : null,
      error: errorText,
    });
    Object.assign(delivery, {
      lastStatusCode: result?.statusCode ?? null,
      lastError: errorText,
      status: ok ? 'succeeded' : 'pending',
      completedAt: ok ? new Date() : null,
      nextAttemptAt: ok || !nextAttemptAt ? null : new Date(nextAttemptAt),
    });
    await deliveries.save(delivery);

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
