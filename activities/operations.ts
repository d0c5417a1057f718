import type { DataSource } from 'typeorm';
import { Operation } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import type { ScopeRef } from '../workflows/types';

export interface OperationRef extends ScopeRef {
  operationId: string;
}

/** Shared by the workflows behind `GET /v1/operations/:id`. */
export function createOperationActivities(db: DataSource) {
  return {
    async addOperationProgress(input: OperationRef & { processed: number }): Promise<void> {
      await new ScopedData(db.manager, input).sql(
        (q) =>
          `UPDATE ${q.table(Operation)} SET processed = LEAST(total, processed + ${q.value(input.processed)}), updated_at = now()
            WHERE ${q.scope()} AND id = ${q.value(input.operationId)}`,
      );
    },

    async finishOperation(input: OperationRef & { status: 'succeeded' | 'failed' }): Promise<void> {
      await new ScopedData(db.manager, input)
        .repo(Operation)
        .updateWhere({ id: input.operationId }, { status: input.status, finishedAt: new Date() });
    },
  };
}

export type OperationActivities = ReturnType<typeof createOperationActivities>;
