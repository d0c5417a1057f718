import { z } from 'zod';
import { TASK_STATUSES, TASK_TYPES } from '../db/entities/task';
import { encodedId, isoDateTime, nonBlank, PaginationQuery, sortQuery, rangeEnd, rangeStart } from './common';
import { anyOf } from './list-filters';

export const TaskCreate = z
  .object({
    title: nonBlank(200),
    description: z.string().max(10_000).nullable().optional(),
    dueAt: isoDateTime.nullable().optional(),
    leadId: encodedId('lead').nullable().optional(),
    opportunityId: encodedId('opportunity').nullable().optional(),
    assignedTo: encodedId('user').nullable().optional().meta({ description: 'User ID; defaults to the acting user' }),
    type: z.enum(TASK_TYPES).optional(),
  })
  .strict()
  .meta({ id: 'TaskCreate' });
export type TaskCreate = z.output<typeof TaskCreate>;

/** Status moves through the action routes (complete, start, cancel), never by PATCH. */
export const TaskUpdate = TaskCreate.partial().strict().meta({ id: 'TaskUpdate' });
export type TaskUpdate = z.output<typeof TaskUpdate>;

export const Task = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    dueAt: z.string().nullable(),
    leadId: z.string().nullable(),
    opportunityId: z.string().nullable(),
    assignedTo: z.string().nullable(),
    type: z.enum(TASK_TYPES),
    status: z.enum(TASK_STATUSES),
    completedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Task' });
export type Task = z.output<typeof Task>;

export const TaskListQuery = PaginationQuery.extend({
  sort: sortQuery(['createdAt', 'updatedAt', 'dueAt', 'title'] as const, 'createdAt:desc'),
  status: anyOf(TASK_STATUSES).optional(),
  type: anyOf(TASK_TYPES).optional(),
  leadId: encodedId('lead').optional(),
  opportunityId: encodedId('opportunity').optional(),
  assignedTo: encodedId('user').optional(),
  dueFrom: rangeStart.optional(),
  dueTo: rangeEnd.optional(),
  overdue: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .meta({ description: 'true: due before now and neither completed nor cancelled' }),
});
export type TaskListQuery = z.output<typeof TaskListQuery>;

export const TaskIdParams = z.object({ id: encodedId('task') });
