import type { DataSource } from 'typeorm';
import { WebhookDelivery } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { isDeliveryRunning } from '../../domain/webhooks/deliveries';
import { startDelivery } from '../../domain/webhooks/relay';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { createOperationActivities, type OperationRef } from '../operations';

/** Failed deliveries re-sent per activity. */
const RECOVER_PAGE_SIZE = 100;

export function createRecoverActivities(db: DataSource, workflows: WorkflowStarter) {
  const progress = createOperationActivities(db);
  return {
    /** Starts a new run for the next page of failed deliveries after `afterId`; nextAfterId null when none are left. */
    async recoverDeliveryPage(
      input: OperationRef & { endpointId: string; since: string; afterId: string },
    ): Promise<{ nextAfterId: string | null; started: number }> {
      const rows = await new ScopedData(db.manager, input).sql<{ id: string; event_id: string }>(
        (q) =>
          `SELECT d.id::text AS id, d.event_id::text AS event_id FROM ${q.from(WebhookDelivery, 'd')}
            WHERE d.endpoint_id = ${q.value(input.endpointId)} AND d.status = 'failed'
              AND d.created_at >= ${q.value(input.since)} AND d.id > ${q.value(input.afterId)}
            ORDER BY d.id LIMIT ${RECOVER_PAGE_SIZE}`,
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
