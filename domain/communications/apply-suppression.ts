import type { DataSource } from 'typeorm';
import type { OutboxEvent } from '../../db/entities';
import type { SuppressionReason } from '../../db/entities/email-suppression';
import type { TenantScope } from '../../db/scoped-repository';
import { queryRows } from '../../db/sql';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { stopSignal } from '../../workflows/campaign-signals';
import { signalWorkflows } from '../campaigns/signal-enrollments';
import type { WebhookDomainOptions } from '../context';
import { normalizeEmail } from '../normalize';
import { emitCatalogEvent } from '../transaction';
import { relayAfterCommit } from '../webhooks/relay';
import { suppressAddress } from './email-suppressions';

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
  const events: OutboxEvent[] = [];
  const marked = await deps.db.transaction(async (manager) => {
    await suppressAddress(manager, scope, address, cause.reason);
    const rows = await queryRows(
      manager,
      `UPDATE leads SET ${column} = $5, updated_at = now()
        WHERE tenant_id = $1 AND environment = $2 AND (email_normalized = $3 OR id = $4::bigint) AND ${column} IS NULL
        RETURNING id::text`,
      [scope.tenantId, scope.environment, address, cause.leadId, cause.at],
    );
    const ids = rows.map((r) => r.id as string);
    for (const id of ids) {
      events.push(await emitCatalogEvent(manager, scope, 'lead.updated', { id, changes: { [field]: cause.at.toISOString() } }));
    }
    return ids;
  });
  if (events.length) await relayAfterCommit(deps.db, deps.workflows, events, deps.webhooks?.relayHooks);
  await stopEnrollmentsOfAddress(deps, scope, address, cause.leadId, cause.reason);
  return marked;
}

/**
 * Signals `stop` to the active enrollments of every lead with the address. A lost signal still
 * takes effect: the sequence checks the lead and the suppression list before every send.
 */
async function stopEnrollmentsOfAddress(
  deps: SuppressionDeps,
  scope: TenantScope,
  address: string,
  leadId: string | null,
  reason: SuppressionReason,
): Promise<void> {
  const rows = await queryRows(
    deps.db.manager,
    `SELECT e.workflow_id FROM campaign_enrollments e
       JOIN leads l ON l.id = e.lead_id AND l.tenant_id = e.tenant_id AND l.environment = e.environment
      WHERE e.tenant_id = $1 AND e.environment = $2 AND e.status = 'active' AND (l.email_normalized = $3 OR l.id = $4::bigint)`,
    [scope.tenantId, scope.environment, address, leadId],
  );
  await signalWorkflows(
    deps.workflows.client,
    rows.map((r) => r.workflow_id as string),
    stopSignal,
    { reason },
  );
}
