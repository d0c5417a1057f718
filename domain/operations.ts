import { Operation } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { notFound } from '../lib/errors';
import type { DomainContext } from './context';

export async function getOperation(ctx: DomainContext, id: string): Promise<Operation> {
  const operation = await scoped(ctx.db.manager, Operation, ctx.scope).findById(id);
  if (!operation) throw notFound('Operation');
  return operation;
}
