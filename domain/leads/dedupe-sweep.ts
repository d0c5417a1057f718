import type { DataSource } from 'typeorm';
import type { Environment } from '../../db/entities/tenant-owned';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { leadDedupeWorkflow } from '../../workflows/lead-dedupe';
import { leadDedupeStart } from './leads';
import { unscoped } from '../../db/unscoped';

/**
 * Starts duplicate detection for leads whose check never ran: their background start was dropped
 * under load, failed while Temporal was down, or died with the API process. A system task across
 * tenants; each start carries its lead's own tenant and environment.
 */
export async function sweepUncheckedLeads(
  db: DataSource,
  workflows: WorkflowStarter,
  opts: { minAgeMs: number; limit?: number },
): Promise<{ started: number }> {
  const rows: { id: string; tenant_id: string; environment: Environment; email: string }[] = await unscoped(db).rows(
    `SELECT id, tenant_id, environment, email FROM leads
      WHERE duplicates_checked_at IS NULL AND created_at <= now() - make_interval(secs => $1)
      ORDER BY created_at LIMIT $2`,
    [opts.minAgeMs / 1000, opts.limit ?? 1000],
  );
  let started = 0;
  for (const row of rows) {
    const lead = { id: row.id, tenantId: row.tenant_id, environment: row.environment, email: row.email };
    if ((await workflows.start(leadDedupeWorkflow, leadDedupeStart(lead))).started) started++;
  }
  return { started };
}
