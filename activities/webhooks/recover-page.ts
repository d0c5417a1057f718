import type { DataSource } from 'typeorm';
import { queryRows } from '../../db/sql';
import { isDeliveryRunning } from '../../domain/webhooks/deliveries';
import { startDelivery } from '../../domain/webhooks/relay';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { createOperationActivities, type OperationRef } from '../operations';

/** Failed deliveries re-sent per activity. */
export const RECOVER_PAGE_SIZE = 100;

export function createRecoverActivities(db: DataSource, workflows: WorkflowStarter) {
  const progress = createOperationActivities(db);
  return {
    /** Starts a new run for the next page of failed deliveries after `afterId`; nextAfterId null when none are left. */
    async recoverDeliveryPage(
      input: OperationRef & { endpointId: string; since: string; afterId: string },
    ): Promise<{ nextAfterId: string | null; started: number }> {
      const rows = await queryRows(
        db.manager,
        `SELECT d.id::text AS id, d.event_id::text AS event_id FROM webhook_deliveries d
          WHERE d.tenant_id = $1 AND d.environment = $2 AND d.endpoint_id = $3 AND d.status = 'failed'
            AND d.created_at >= $4 AND d.id > $5
          ORDER BY d.id LIMIT ${RECOVER_PAGE_SIZE}`,
        [input.tenantId, input.environment, input.endpointId, input.since, input.afterId],
      );
      const scope = { tenantId: input.tenantId, environment: input.environment };
      let started = 0;
      for (const row of rows) {
        const delivery = { eventId: row.event_id as string, endpointId: input.endpointId };
        if (await isDeliveryRunning(workflows.client, delivery)) continue;
        await startDelivery(workflows, scope, delivery.eventId, delivery.endpointId, true);
        started++;
      }
      await progress.addOperationProgress({ ...input, processed: rows.length });
      return { nextAfterId: rows.length < RECOVER_PAGE_SIZE ? null : (rows[rows.length - 1].id as string), started };
    },
  };
}

export type RecoverActivities = ReturnType<typeof createRecoverActivities>;
