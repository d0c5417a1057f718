import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { SignalDefinition } from '@temporalio/common';
import { CampaignEnrollment } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import { stopSignal } from '../../workflows/campaign-signals';
import { forEachConcurrently } from '../../lib/concurrency';
import { logger } from '../../lib/logger';

const CONCURRENCY = 10;

/**
 * Signals each workflow, a few at a time. A workflow that already finished is skipped; any other
 * failure is logged, not raised: the database already holds the new state, and the sequence
 * re-checks the campaign's status before every send, so a lost pause or stop still takes effect.
 */
export async function signalWorkflows<Args extends unknown[]>(
  client: Client,
  workflowIds: string[],
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<void> {
  await signalConcurrently(CONCURRENCY, client, workflowIds, signal, ...args);
}

/** signalWorkflows with `concurrency` signals in flight (a background fan-out can afford more than a request). */
export async function signalConcurrently<Args extends unknown[]>(
  concurrency: number,
  client: Client,
  workflowIds: string[],
  signal: SignalDefinition<Args>,
  ...args: Args
): Promise<void> {
  await forEachConcurrently(workflowIds, concurrency, async (id) => {
    try {
      await client.workflow.getHandle(id).signal(signal, ...args);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) logger.warn({ err, workflowId: id, signal: signal.name }, 'could not signal enrollment');
    }
  });
}

/**
 * A lead that goes away (deleted, or merged into another) leaves its enrollments at once rather
 * than at their next step, which may be days off: `activeEnrollmentsOf` reads them in the
 * transaction that removes the lead, `stopEnrollments` signals them after its commit.
 */
export async function activeEnrollmentsOf(data: ScopedData, leadId: string): Promise<string[]> {
  const rows = await data.repo(CampaignEnrollment).find({ where: { leadId, status: 'active' }, select: { workflowId: true } });
  return rows.map((r) => r.workflowId);
}

/** Signals `stop` with the reason the enrollments record (stopSignal lists them). */
export function stopEnrollments(client: Client, workflowIds: string[], reason: string): Promise<void> {
  return signalWorkflows(client, workflowIds, stopSignal, { reason });
}
