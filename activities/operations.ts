import type { DataSource } from 'typeorm';
import { Operation } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import type { ScopeRef } from '../workflows/types';

export interface OperationRef extends ScopeRef {
  operationId: string;
}

/** Shared by the workflows behind `GET /v1/operations/:id`. */
export function createOperationActivities(db: DataSource) {
  return {
    async addOperationProgress(input: OperationRef & { processed: number }): Promise<void> {
      await db.query(
        'UPDATE operations SET processed = LEAST(total, processed + $4), updated_at = now() WHERE tenant_id = $1 AND environment = $2 AND id = $3',
        [input.tenantId, input.environment, input.operationId, input.processed],
      );
    },

    async finishOperation(input: OperationRef & { status: 'succeeded' | 'failed' }): Promise<void> {
      await scoped(db.manager, Operation, input).updateWhere({ id: input.operationId }, { status: input.status, finishedAt: new Date() });
    },
  };
}

export type OperationActivities = ReturnType<typeof createOperationActivities>;
