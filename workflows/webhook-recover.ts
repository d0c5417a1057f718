import { ApplicationFailure, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { OperationActivities } from '../activities/operations';
import type { RecoverActivities } from '../activities/webhooks/recover-page';
import { LONG_ACTIVITY } from './long-activity';
import type { ScopeRef } from './types';

export interface WebhookRecoverInput extends ScopeRef {
  operationId: string;
  endpointId: string;
  /** ISO time: failed deliveries created since then are re-sent. */
  since: string;
  afterId?: string;
}

const { recoverDeliveryPage, finishOperation } = proxyActivities<RecoverActivities & OperationActivities>({
  ...LONG_ACTIVITY,
  retry: { maximumAttempts: 10 },
});

const PAGES_PER_RUN = 100;

/**
 * `POST /v1/integrations/webhooks/:id/recover` after its 202: starts a new delivery run for each
 * failed delivery of the endpoint since a time, a page per activity, and records the outcome on
 * the operation the caller polls. Workflow ID `webhook-recover/<webhookId>/<operationId>`.
 */
export async function webhookRecoverWorkflow(input: WebhookRecoverInput): Promise<void> {
  const ref = { tenantId: input.tenantId, environment: input.environment, operationId: input.operationId };
  let afterId: string | null = input.afterId ?? '0';
  try {
    for (let pages = 0; afterId !== null; pages++) {
      if (pages >= PAGES_PER_RUN || workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof webhookRecoverWorkflow>({ ...input, afterId });
      }
      afterId = (await recoverDeliveryPage({ ...ref, endpointId: input.endpointId, since: input.since, afterId })).nextAfterId;
    }
  } catch (err) {
    await finishOperation({ ...ref, status: 'failed' });
    throw ApplicationFailure.nonRetryable(`webhook recover failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  await finishOperation({ ...ref, status: 'succeeded' });
}
