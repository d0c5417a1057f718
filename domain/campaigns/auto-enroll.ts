import { Campaign, PendingEnrollment } from '../../db/entities';
import type { LeadTrigger } from '../../db/entities/pending-enrollment';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import { AppError } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { logger } from '../../lib/logger';
import type { StartOptions } from '../../lib/temporal/workflow-starter';
import { autoEnrollWorkflow } from '../../workflows/auto-enroll';
import { workflowIds } from '../../workflows/ids';
import type { DomainContext } from '../context';
import { enrollLeads } from './enroll';

/**
 * The IDs of the campaigns a trigger starts, as one row `ids` (text[]), for a statement that writes
 * leads: pendingEnrollmentSql records them under the name `triggered`.
 */
export function triggeredCampaignsSql(q: ScopedSqlBuilder, trigger: LeadTrigger): string {
  return `SELECT coalesce(array_agg(c.id::text ORDER BY c.id), '{}') AS ids FROM ${q.from(Campaign, 'c')}
    WHERE c.status = 'active' AND c.trigger_type = ${q.value(trigger)}::varchar`;
}

/**
 * The INSERT (`RETURNING *`) of a pending enrollment of `leadIdsSql` (a bigint[] expression) into
 * the campaigns of a CTE named `triggered` (triggeredCampaignsSql), for a statement that also
 * writes the leads: nothing when no campaign has the trigger, or when `where` is false. The
 * request answers without waiting for the enrollments; startPendingEnrollment sends them on.
 */
export function pendingEnrollmentSql(
  q: ScopedSqlBuilder,
  trigger: LeadTrigger,
  leadIdsSql: string,
  actorUserId: string,
  where = 'true',
): string {
  const campaignIds = '(SELECT ids FROM triggered)::bigint[]';
  return `${q.insert(
    PendingEnrollment,
    { trigger, leadIds: q.raw(leadIdsSql), campaignIds: q.raw(campaignIds), actorUserId },
    { where: `cardinality(${campaignIds}) > 0 AND (${where})` },
  )} RETURNING *`;
}

/**
 * Records, inside the caller's transaction, that `leadIds` enroll into the active campaigns with
 * this trigger (none: nothing is written, null). Start it with startPendingEnrollment after commit.
 */
export async function recordPendingEnrollment(
  tx: ScopedData,
  trigger: LeadTrigger,
  leadIds: string[],
  actorUserId: string,
): Promise<PendingEnrollment | null> {
  if (!leadIds.length) return null;
  const [pending] = await tx.sqlEntities(
    PendingEnrollment,
    (q) => `WITH triggered AS (${triggeredCampaignsSql(q, trigger)})
    ${pendingEnrollmentSql(q, trigger, `${q.value(leadIds)}::bigint[]`, actorUserId)}`,
  );
  return pending ?? null;
}

/**
 * Starts the committed pending enrollment's workflow once the request has moved on (it does not
 * wait for Temporal, nor for the campaigns' own starts). A start that is lost is the sweep's.
 */
export function startPendingEnrollment(ctx: Pick<DomainContext, 'workflows'>, pending: PendingEnrollment | null): void {
  if (pending) ctx.workflows.startSoon(autoEnrollWorkflow, autoEnrollStart(pending));
}

export function autoEnrollStart(pending: PendingEnrollment): StartOptions<typeof autoEnrollWorkflow> {
  const leadId = pending.leadIds.length === 1 ? encodeId('lead', pending.leadIds[0]) : undefined;
  const leads = leadId ? `lead ${leadId}` : `${pending.leadIds.length} leads`;
  return {
    workflowId: workflowIds.autoEnroll(encodeId('pendingEnrollment', pending.id)),
    args: [{ tenantId: pending.tenantId, environment: pending.environment, pendingId: pending.id }],
    searchAttributes: { tenantId: encodeId('tenant', pending.tenantId), environment: pending.environment, leadId },
    memo: { summary: `Enrolls ${leads} in ${pending.campaignIds.length} ${pending.trigger} campaign(s)` },
  };
}

/**
 * Enrolls the pending enrollment's leads into each of its campaigns, then deletes it. A campaign
 * that stopped taking leads meanwhile (completed, archived, deleted) is skipped; any other failure
 * is thrown for the activity's retry, and enrolling twice is harmless (a lead already enrolled is
 * reported, not restarted).
 */
export async function enrollPending(ctx: DomainContext, pending: PendingEnrollment): Promise<{ enrolled: number }> {
  const enrolled = await enrollInto(ctx, pending.campaignIds, pending.leadIds);
  await ctx.data.repo(PendingEnrollment).deleteWhere({ id: pending.id });
  return { enrolled };
}

/** One enrollment call per campaign, skipping campaigns that no longer take leads; the number of new enrollments. */
async function enrollInto(ctx: DomainContext, campaignIds: string[], leadIds: string[]): Promise<number> {
  const publicIds = leadIds.map((id) => encodeId('lead', id));
  let enrolled = 0;
  for (const campaignId of campaignIds) {
    try {
      const results = await enrollLeads(ctx, campaignId, publicIds);
      enrolled += results.filter((r) => r.status === 'enrolled').length;
    } catch (err) {
      if (!(err instanceof AppError && (err.code === 'conflict' || err.code === 'not_found'))) throw err;
      logger.info({ campaignId, reason: err.message }, 'campaign no longer takes leads; automatic enrollment skipped');
    }
  }
  return enrolled;
}
