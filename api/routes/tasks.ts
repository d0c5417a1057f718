import { z } from 'zod';
import { TASK_ACTIONS, createTask, deleteTask, getTask, listTasks, transitionTask, updateTask, type TaskAction } from '../../domain/tasks';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeTask } from '../serializers/task';
import { Task, TaskCreate, TaskIdParams, TaskListQuery, TaskUpdate } from '../schemas/task';

const ACTION_SUMMARIES: Record<TaskAction, string> = {
  start: 'Start a task (pending -> in_progress)',
  complete: 'Complete a task (emits task.completed; 409 when completed or cancelled)',
  cancel: 'Cancel a task (409 when completed or cancelled)',
};

export function taskRoutes(deps: AppDeps) {
  const base = { tag: 'Tasks', auth: 'tenant', scope: 'tasks:write' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/tasks',
      summary: 'Create a task (status pending; assignedTo defaults to the acting user)',
      body: TaskCreate,
      response: Task,
      handler: async ({ body, auth }) => ({
        data: serializeTask(await createTask(domainContext(deps, auth), body)),
        message: 'Task created',
      }),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/tasks',
      summary: 'List tasks',
      scope: 'tasks:read',
      query: TaskListQuery,
      response: z.array(Task),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listTasks(domainContext(deps, auth), query);
        return { data: rows.map(serializeTask), pagination: paginate(query.page, query.limit, total), message: 'Tasks retrieved' };
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/tasks/:id',
      summary: 'Get a task',
      scope: 'tasks:read',
      params: TaskIdParams,
      response: Task,
      handler: async ({ params, auth }) => ({
        data: serializeTask(await getTask(domainContext(deps, auth), params.id)),
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
      handler: async ({ params, body, auth }) => ({
        data: serializeTask(await updateTask(domainContext(deps, auth), params.id, body)),
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
      handler: async ({ params, auth }) => ({
        data: serializeTask(await deleteTask(domainContext(deps, auth), params.id)),
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
        handler: async ({ params, auth }) => ({
          data: serializeTask(await transitionTask(domainContext(deps, auth), params.id, action)),
          message: `Task ${TASK_ACTIONS[action].to.replace('_', ' ')}`,
        }),
      }),
    ),
  ];
}
