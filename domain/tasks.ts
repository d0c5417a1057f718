import { Lead, Opportunity, Task } from '../db/entities';
import { validationFailed } from '../lib/errors';
import { encodeId } from '../lib/ids';
import type { TaskStatus } from '../db/entities/task';
import type { TaskCreate, TaskListQuery, TaskUpdate } from '../contracts/task';
import type { DomainContext } from './context';
import { assertAssignable, assertExists, findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { nextState, type Transitions } from './transitions';
import { unitOfWork } from './unit-of-work';
import { detachFiles } from './files';
import { type ScopedData } from '../db/scoped-data';

export const TASK_ACTIONS = {
  start: { from: ['pending'], to: 'in_progress' },
  complete: { from: ['pending', 'in_progress'], to: 'completed' },
  cancel: { from: ['pending', 'in_progress'], to: 'cancelled' },
} as const satisfies Transitions<TaskStatus, string>;
export type TaskAction = keyof typeof TASK_ACTIONS;

/**
 * Links must point at records the caller can see, and a task's deal must be its lead's deal. A link
 * equal to the stored one is not a change (a client sending the record back), so it passes even if
 * it names a record deleted since, as an assignee who left does.
 */
async function assertLinks(tx: ScopedData, input: TaskUpdate, current?: Task): Promise<void> {
  const changed = (key: 'leadId' | 'opportunityId') => input[key] !== undefined && input[key] !== current?.[key];
  if (changed('leadId')) await assertExists(tx, Lead, input.leadId, 'leadId', 'Lead');
  const leadId = input.leadId !== undefined ? input.leadId : (current?.leadId ?? null);
  const opportunityId = input.opportunityId !== undefined ? input.opportunityId : (current?.opportunityId ?? null);
  if (opportunityId && (changed('opportunityId') || changed('leadId'))) {
    const deal = await tx.repo(Opportunity).findById(opportunityId);
    if (!deal && changed('opportunityId')) throw validationFailed([{ field: 'opportunityId', message: 'Opportunity not found' }]);
    if (deal?.leadId && leadId && deal.leadId !== leadId) {
      throw validationFailed([
        {
          field: 'opportunityId',
          message: `Is the deal of another lead (${encodeId('lead', deal.leadId)}); link the task to that lead, or leave leadId out`,
        },
      ]);
    }
  }
  await assertAssignable(tx, input.assignedTo, 'assignedTo', current?.assignedTo);
}

export function createTask(ctx: DomainContext, input: TaskCreate): Promise<Task> {
  return unitOfWork(ctx, async (tx) => {
    await assertLinks(tx, input);
    const task = await tx.repo(Task).insert({
      title: input.title,
      description: input.description ?? null,
      dueAt: input.dueAt ? new Date(input.dueAt) : null,
      leadId: input.leadId ?? null,
      opportunityId: input.opportunityId ?? null,
      assignedTo: input.assignedTo === undefined ? ctx.actorUserId : input.assignedTo,
      type: input.type ?? 'other',
      status: 'pending',
      createdBy: ctx.actorUserId,
      completedAt: null,
    });
    await tx.emit('task.created', { id: task.id, title: task.title, assigneeId: task.assignedTo });
    return task;
  });
}

export const getTask = (ctx: DomainContext, id: string) => findOrFail(ctx.data, Task, id, 'Task');

const SORT_COLUMNS: Record<TaskListQuery['sort']['field'], string> = {
  createdAt: 't.created_at',
  updatedAt: 't.updated_at',
  dueAt: 't.due_at',
  title: 't.title',
};

export function listTasks(ctx: DomainContext, f: TaskListQuery) {
  const qb = ctx.data.repo(Task).select('t');
  if (f.status) qb.andWhere('t.status IN (:...status)', { status: f.status });
  if (f.type) qb.andWhere('t.type IN (:...type)', { type: f.type });
  if (f.leadId) qb.andWhere('t.lead_id = :leadId', { leadId: f.leadId });
  if (f.opportunityId) qb.andWhere('t.opportunity_id = :opportunityId', { opportunityId: f.opportunityId });
  if (f.assignedTo) qb.andWhere('t.assigned_to = :assignedTo', { assignedTo: f.assignedTo });
  if (f.dueFrom) qb.andWhere('t.due_at >= :dueFrom', { dueFrom: f.dueFrom });
  if (f.dueTo) qb.andWhere('t.due_at <= :dueTo', { dueTo: f.dueTo });
  if (f.overdue === true) qb.andWhere("t.due_at < now() AND t.status NOT IN ('completed', 'cancelled')");
  if (f.overdue === false) qb.andWhere("NOT (t.due_at IS NOT NULL AND t.due_at < now() AND t.status NOT IN ('completed', 'cancelled'))");
  qb.orderBy(SORT_COLUMNS[f.sort.field], f.sort.direction, 'NULLS LAST').addOrderBy('t.id', f.sort.direction);
  return pageOf(qb, f.page, f.limit);
}

export function updateTask(ctx: DomainContext, id: string, patch: TaskUpdate): Promise<Task> {
  return unitOfWork(ctx, async (tx) => {
    const task = await findForUpdate(tx, Task, id, 'Task');
    await assertLinks(tx, patch, task);
    const { dueAt, ...fields } = patch;
    Object.assign(task, fields);
    if (dueAt !== undefined) task.dueAt = dueAt === null ? null : new Date(dueAt);
    return tx.repo(Task).save(task);
  });
}

export function deleteTask(ctx: DomainContext, id: string): Promise<Task> {
  return unitOfWork(ctx, async (tx) => {
    const task = await findForUpdate(tx, Task, id, 'Task');
    await tx.repo(Task).deleteById(id);
    await detachFiles(tx, 'task', id);
    return task;
  });
}

/** complete emits task.completed; start and cancel only move the status. */
export function transitionTask(ctx: DomainContext, id: string, action: TaskAction): Promise<Task> {
  return unitOfWork(ctx, async (tx) => {
    const task = await findForUpdate(tx, Task, id, 'Task');
    task.status = nextState('task', TASK_ACTIONS, task.status, action);
    if (action === 'complete') task.completedAt = new Date();
    const saved = await tx.repo(Task).save(task);
    if (action === 'complete') await tx.emit('task.completed', { id: task.id });
    return saved;
  });
}
