import { ActivityFailure, proxyActivities } from '@temporalio/workflow';
import type { MessagingActivities } from '../activities/messaging';
import { proxyLaneActivities } from './lanes';
import type { ScopeRef } from './types';

/**
 * Provider calls are retried for about half an hour (timeouts, 4xx from throttling, 5xx). The
 * activity is idempotent per message, so a retry never sends twice. Its worker heartbeats every 5 s
 * (workers/heartbeat-interceptor.ts): a send whose worker died is retried 20 s later, not after the
 * whole minute.
 */
const deliverOptions = {
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
} as const;
/** Bookkeeping in our own database: retried until it works. */
const { failMessage } = proxyActivities<MessagingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Sends one stored message; when the provider keeps refusing, the message is marked failed. */
export async function deliverOrFail(scope: ScopeRef, messageId: string): Promise<'sent' | 'failed'> {
  const { deliverMessage } = proxyLaneActivities<MessagingActivities>('sends', deliverOptions);
  try {
    return (await deliverMessage({ ...scope, messageId })).status;
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    await failMessage({ ...scope, messageId, reason: err.cause?.message ?? err.message });
    return 'failed';
  }
}
