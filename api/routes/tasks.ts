import { z } from 'zod';
import { TASK_ACTIONS, createTask, deleteTask, getTask, listTasks, transitionTask, updateTask, type TaskAction } from '../../domain/tasks';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeTask } from '../serializers/task';
import { Task, TaskCreate, TaskIdParams, TaskListQuery, TaskUpdate } from '../../contracts/task';

const ACTION_SUMMARIES: Record<TaskAction, string> = {
  start: 'Start a task (pending -> in_progress)',
  complete: 'Complete a task (emits task.completed; 409 when completed or cancelled)',
  cancel: 'Cancel a task (409 when completed or cancelled)',
};

export function taskRoutes() {
  const base = { tag: 'Tasks', auth: 'tenant', scope: 'tasks:write' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/tasks',
      summary: 'Create a task (status pending; assignedTo defaults to the acting user)',
      body: TaskCreate,
      response: Task,
      handler: async ({ body, ctx }) => ({
        data: serializeTask(await createTask(ctx, body)),
        message: 'Task created',
      }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/tasks',
      summary: 'List tasks',
      scope: 'tasks:read',
      query: TaskListQuery,
      response: z.array(Task),
      message: 'Tasks retrieved',
      serialize: serializeTask,
      handler: ({ query, ctx }) => listTasks(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/tasks/:id',
      summary: 'Get a task',
      scope: 'tasks:read',
      params: TaskIdParams,
      response: Task,
      handler: async ({ params, ctx }) => ({
        data: serializeTask(await getTask(ctx, params.id)),
        message: 'Task retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/tasks/:id',
      summary: 'Update a task (status moves through the action routes)',
      params: TaskIdParams,
      body: TaskUpdate,
      response: Task,
      handler: async ({ params, body, ctx }) => ({
        data: serializeTask(await updateTask(ctx, params.id, body)),
        message: 'Task updated',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/tasks/:id',
      summary: 'Delete a task',
      params: TaskIdParams,
      response: Task,
      handler: async ({ params, ctx }) => ({
        data: serializeTask(await deleteTask(ctx, params.id)),
        message: 'Task deleted',
      }),
    }),
    ...(Object.keys(TASK_ACTIONS) as TaskAction[]).map((action) =>
      defineRoute({
        ...base,
        method: 'post',
        path: `/v1/tasks/:id/${action}`,
        summary: ACTION_SUMMARIES[action],
        params: TaskIdParams,
        response: Task,
        status: 200,
        handler: async ({ params, ctx }) => ({
          data: serializeTask(await transitionTask(ctx, params.id, action)),
          message: `Task ${TASK_ACTIONS[action].to.replace('_', ' ')}`,
        }),
      }),
    ),
  ];
}
