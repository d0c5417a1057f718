import type { DataSource } from 'typeorm';
import { CampaignEnrollment, Lead } from '../../db/entities';
import type { SuppressionReason } from '../../db/entities/email-suppression';
import type { TenantScope } from '../../db/scoped-repository';
import { ScopedData } from '../../db/scoped-data';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { stopEnrollments } from '../campaigns/signal-enrollments';
import type { WebhookDomainOptions } from '../context';
import { normalizeEmail } from '../normalize';
import { unitOfWork } from '../unit-of-work';
import { lockLeadsOfAddress, suppressAddresses } from './email-suppressions';

/** What suppressing needs: the database, Temporal (to end enrollments) and the webhook relay. */
export interface SuppressionDeps {
  db: DataSource;
  workflows: WorkflowStarter;
  webhooks?: WebhookDomainOptions;
}

export interface SuppressionCause {
  address: string;
  reason: SuppressionReason;
  at: Date;
  /** The lead the unsubscribe or bounce came through (its address may have changed since the send). */
  leadId: string | null;
}

const LEAD_COLUMN = { unsubscribed: ['unsubscribed_at', 'unsubscribedAt'], bounced: ['bounced_at', 'bouncedAt'] } as const;

/**
 * An unsubscribe or hard bounce: the address is suppressed, every lead carrying it (and the lead it
 * came through) is marked with `lead.updated`, and their running enrollments are stopped at once by
 * signal (they exit with the reason), rather than at their next step. Returns the leads it marked.
 */
export async function applySuppression(deps: SuppressionDeps, scope: TenantScope, cause: SuppressionCause): Promise<string[]> {
  const [column, field] = LEAD_COLUMN[cause.reason];
  const address = normalizeEmail(cause.address);
  const marked = await unitOfWork({ ...deps, scope }, async (tx) => {
    await lockLeadsOfAddress(tx, address, cause.leadId);
    const rows = await tx.sql<{ id: string; email_normalized: string | null }>(
      (q) => `UPDATE ${q.table(Lead)} SET ${column} = ${q.value(cause.at)}, updated_at = now()
        WHERE ${q.scope()} AND (email_normalized = ${q.value(address)} OR id = ${q.value(cause.leadId)}::bigint) AND ${column} IS NULL
        RETURNING id::text, email_normalized`,
    );
    for (const { id } of rows) await tx.emit('lead.updated', { id, changes: { [field]: cause.at.toISOString() } });
    // The person opted out, whatever address their lead has now: that address is suppressed too, so
    // the list holds what refuses them, and re-subscribing it (DELETE /v1/suppressions/:id) undoes it.
    const others = cause.reason === 'unsubscribed' ? rows.flatMap((r) => (r.email_normalized ? [r.email_normalized] : [])) : [];
    await suppressAddresses(tx, [address, ...others], cause.reason);
    return rows.map((r) => r.id);
  });
  await stopEnrollmentsOfAddress(deps, new ScopedData(deps.db.manager, scope), address, cause.leadId, cause.reason);
  return marked;
}

/**
 * Signals `stop` to the active enrollments of every lead with the address. A lost signal still
 * takes effect: the sequence checks the lead and the suppression list before every send.
 */
async function stopEnrollmentsOfAddress(
  deps: SuppressionDeps,
  data: ScopedData,
  address: string,
  leadId: string | null,
  reason: SuppressionReason,
): Promise<void> {
  const rows = await data.sql<{ workflow_id: string }>(
    (q) => `SELECT e.workflow_id FROM ${q.from(CampaignEnrollment, 'e')} JOIN ${q.from(Lead, 'l')} ON l.id = e.lead_id
      WHERE e.status = 'active' AND (l.email_normalized = ${q.value(address)} OR l.id = ${q.value(leadId)}::bigint)`,
  );
  await stopEnrollments(
    deps.workflows.client,
    rows.map((r) => r.workflow_id),
    reason,
  );
}
