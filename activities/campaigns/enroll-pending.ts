import type { DataSource } from 'typeorm';
import { PendingEnrollment } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { unscoped } from '../../db/unscoped';
import { autoEnrollStart, enrollPending } from '../../domain/campaigns/auto-enroll';
import { createDomainContext } from '../../domain/context';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { autoEnrollWorkflow } from '../../workflows/auto-enroll';
import type { PendingEnrollmentRef } from '../../workflows/types';

/** The auto-enroll workflow's one step: the pending enrollment's leads into its campaigns. */
export function enrollPendingLeads(db: DataSource, workflows: WorkflowStarter) {
  return async ({ tenantId, environment, pendingId }: PendingEnrollmentRef): Promise<{ enrolled: number }> => {
    const scope = { tenantId, environment };
    const pending = await new ScopedData(db.manager, scope).repo(PendingEnrollment).findById(pendingId);
    if (!pending) return { enrolled: 0 }; // made and removed by an earlier run
    return enrollPending(createDomainContext({ db, scope, workflows, actorUserId: pending.actorUserId }), pending);
  };
}

/**
 * Starts the auto-enroll workflow of pending enrollments at least `minAgeMs` old: their start was
 * dropped, failed while Temporal was down, or died with the API process. A system task across
 * tenants; each start carries its own tenant and environment. A run still open is left to finish.
 */
export function sweepPendingEnrollments(db: DataSource, workflows: WorkflowStarter) {
  return async (opts: { minAgeMs: number; limit?: number }): Promise<{ started: number }> => {
    const pending = await unscoped(db)
      .select(PendingEnrollment, 'p')
      .where('p.created_at <= now() - make_interval(secs => :secs)', { secs: opts.minAgeMs / 1000 })
      .orderBy('p.created_at')
      .limit(opts.limit ?? 1000)
      .getMany();
    let started = 0;
    for (const p of pending) if ((await workflows.start(autoEnrollWorkflow, autoEnrollStart(p))).started) started++;
    return { started };
  };
}
