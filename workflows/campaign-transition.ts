import { ApplicationFailure, continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { CampaignTransitionActivities } from '../activities/campaigns/signal-enrollment-page';
import type { OperationActivities } from '../activities/operations';
import { LONG_ACTIVITY } from './long-activity';
import type { ScopeRef } from './types';

export type EnrollmentSignal = 'pause' | 'resume' | 'stop';

export interface CampaignTransitionInput extends ScopeRef {
  operationId: string;
  campaignId: string;
  signal: EnrollmentSignal;
  /** Where the previous run stopped (continue-as-new): the last enrollment ID already signalled. */
  afterId?: string;
}

const { earlierOperationRunning, signalEnrollmentPage, finishOperation } = proxyActivities<
  CampaignTransitionActivities & OperationActivities
>({
  ...LONG_ACTIVITY,
  retry: { maximumAttempts: 10 },
});

/** Pages per run before continuing as new: keeps each run's history small for any campaign size. */
const PAGES_PER_RUN = 100;

/**
 * A campaign's pause, resume or completion, after the API answered 202: signals every enrollment
 * concerned, one page of enrollments per activity, and records the outcome on the operation the
 * caller polls (`GET /v1/operations/:id`). Workflow ID `campaign-transition/<campaignId>/<operationId>`.
 */
export async function campaignTransitionWorkflow(input: CampaignTransitionInput): Promise<{ afterId: string | null }> {
  const ref = { tenantId: input.tenantId, environment: input.environment, operationId: input.operationId };
  let afterId: string | null = input.afterId ?? '0';
  try {
    // One campaign's operations signal in the order they were made: a resume right after a pause
    // must not reach an enrollment before that pause does.
    for (let wait = 1; input.afterId === undefined && (await earlierOperationRunning({ ...ref, campaignId: input.campaignId }));) {
      await sleep(`${wait} seconds`);
      wait = Math.min(wait * 2, 30);
    }
    for (let pages = 0; afterId !== null; pages++) {
      if (pages >= PAGES_PER_RUN || workflowInfo().continueAsNewSuggested) {
        await continueAsNew<typeof campaignTransitionWorkflow>({ ...input, afterId });
      }
      afterId = (await signalEnrollmentPage({ ...ref, campaignId: input.campaignId, signal: input.signal, afterId })).nextAfterId;
    }
  } catch (err) {
    await finishOperation({ ...ref, status: 'failed' });
    throw ApplicationFailure.nonRetryable(`campaign transition failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  await finishOperation({ ...ref, status: 'succeeded' });
  return { afterId };
}
