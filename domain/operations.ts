import { Operation } from '../db/entities';
import type { OperationType } from '../db/entities/operation';
import type { ScopedData } from '../db/scoped-data';
import { notFound } from '../lib/errors';
import type { DomainContext } from './context';

export async function getOperation(ctx: DomainContext, id: string): Promise<Operation> {
  const operation = await ctx.data.repo(Operation).findById(id);
  if (!operation) throw notFound('Operation');
  return operation;
}

/** Records a running operation (in the caller's unit of work); its workflow ID names the operation. */
export async function createOperation(
  tx: ScopedData,
  input: { type: OperationType; resourceId: string; total: number; workflowIdOf: (operationId: string) => string },
): Promise<Operation> {
  const operations = tx.repo(Operation);
  const row = await operations.insert({ type: input.type, resourceId: input.resourceId, workflowId: 'pending', total: input.total });
  row.workflowId = input.workflowIdOf(row.id);
  await operations.updateWhere({ id: row.id }, { workflowId: row.workflowId });
  return row;
}

/** The operation's workflow could not be started: it says so (the change it fans out stays made). */
export async function markOperationFailed(ctx: DomainContext, id: string): Promise<void> {
  await ctx.data.repo(Operation).updateWhere({ id }, { status: 'failed', finishedAt: new Date() });
}
