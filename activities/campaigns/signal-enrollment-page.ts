import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { CampaignEnrollment, Operation } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { signalConcurrently } from '../../domain/campaigns/signal-enrollments';
import { pauseSignal, resumeSignal, stopSignal } from '../../workflows/campaign-signals';
import type { EnrollmentSignal } from '../../workflows/campaign-transition';
import { createOperationActivities, type OperationRef } from '../operations';

/** Enrollments signalled per activity: a page takes a few seconds even on a loaded machine. */
const ENROLLMENT_PAGE_SIZE = 500;
/** Signals in flight at once: enough to keep the Temporal frontend busy without queueing on the client. */
const SIGNALS_IN_FLIGHT = 32;

/**
 * The enrollments each signal concerns: pause and resume the active ones; stop the ones the
 * completion just marked stopped (their rows changed in the request, their workflows still run).
 */
const TARGETS: Record<EnrollmentSignal, string> = {
  pause: "status = 'active'",
  resume: "status = 'active'",
  stop: "status = 'stopped' AND exit_reason = 'campaign_completed'",
};

export function createCampaignTransitionActivities(db: DataSource, client: Client) {
  const progress = createOperationActivities(db);
  return {
    /** Signals the next page of enrollments after `afterId`; nextAfterId null when none are left. */
    async signalEnrollmentPage(
      input: OperationRef & { campaignId: string; signal: EnrollmentSignal; afterId: string },
    ): Promise<{ nextAfterId: string | null; signalled: number }> {
      const rows = await new ScopedData(db.manager, input).sql<{ id: string; workflow_id: string }>(
        (q) =>
          `SELECT e.id::text AS id, e.workflow_id FROM ${q.from(CampaignEnrollment, 'e')}
            WHERE e.campaign_id = ${q.value(input.campaignId)} AND e.id > ${q.value(input.afterId)} AND ${TARGETS[input.signal]}
            ORDER BY e.id LIMIT ${ENROLLMENT_PAGE_SIZE}`,
      );
      const ids = rows.map((r) => r.workflow_id as string);
      if (input.signal === 'pause') await signalConcurrently(SIGNALS_IN_FLIGHT, client, ids, pauseSignal);
      else if (input.signal === 'resume') await signalConcurrently(SIGNALS_IN_FLIGHT, client, ids, resumeSignal);
      else await signalConcurrently(SIGNALS_IN_FLIGHT, client, ids, stopSignal, { reason: 'campaign_completed' });
      await progress.addOperationProgress({ ...input, processed: rows.length });
      return { nextAfterId: rows.length < ENROLLMENT_PAGE_SIZE ? null : (rows[rows.length - 1].id as string), signalled: rows.length };
    },

    /** Whether an earlier operation on the same campaign is still signalling (a pause still going out when a resume starts). */
    async earlierOperationRunning(input: OperationRef & { campaignId: string }): Promise<boolean> {
      const rows = await new ScopedData(db.manager, input).sql(
        (q) =>
          `SELECT 1 FROM ${q.from(Operation, 'o')}
            WHERE o.resource_id = ${q.value(input.campaignId)} AND o.id < ${q.value(input.operationId)} AND o.type LIKE 'campaign.%' AND o.status = 'running'
            LIMIT 1`,
      );
      return rows.length > 0;
    },
  };
}

export type CampaignTransitionActivities = ReturnType<typeof createCampaignTransitionActivities>;
