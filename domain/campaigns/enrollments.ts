import type { Client } from '@temporalio/client';
import { CampaignEnrollment } from '../../db/entities';
import { progressQuery, type SequenceProgress } from '../../workflows/campaign-signals';
import type { DomainContext } from '../context';
import { getCampaign } from './campaigns';
import { forEachConcurrently } from '../../lib/concurrency';
import { withCallContext } from '../../lib/temporal/call-context';

const QUERY_CONCURRENCY = 10;
/**
 * Progress is a nice-to-have next to the rows: a page waits at most this long for it. Without a
 * deadline the client keeps retrying while Temporal (or every worker) is down and the request hangs.
 */
const PROGRESS_DEADLINE_MS = 3_000;

export interface EnrollmentWithProgress {
  enrollment: CampaignEnrollment;
  /** From the workflow's `progress` query; null when the workflow cannot be asked. */
  progress: SequenceProgress | null;
}

async function queryProgress(client: Client, workflowId: string, deadline: number): Promise<SequenceProgress | null> {
  try {
    return await withCallContext(client, () =>
      // A Temporal workflow query (the enrollment's progress), not a database one.
      // eslint-disable-next-line no-restricted-syntax
      client.withDeadline(deadline, () => client.workflow.getHandle(workflowId).query(progressQuery)),
    );
  } catch {
    return null;
  }
}

export async function listEnrollments(
  ctx: DomainContext,
  campaignId: string,
  f: { page: number; limit: number; status?: string[] },
): Promise<{ rows: EnrollmentWithProgress[]; total: number }> {
  await getCampaign(ctx, campaignId);
  const qb = ctx.data.repo(CampaignEnrollment).select('e').andWhere('e.campaign_id = :campaignId', { campaignId });
  if (f.status) qb.andWhere('e.status IN (:...status)', { status: f.status });
  const [enrollments, total] = await qb.orderBy('e.id', 'ASC').page(f.page, f.limit);
  const rows: EnrollmentWithProgress[] = enrollments.map((enrollment) => ({ enrollment, progress: null }));
  const deadline = Date.now() + PROGRESS_DEADLINE_MS;
  await forEachConcurrently(rows, QUERY_CONCURRENCY, async (row) => {
    row.progress = await queryProgress(ctx.workflows.client, row.enrollment.workflowId, deadline);
  });
  return { rows, total };
}
