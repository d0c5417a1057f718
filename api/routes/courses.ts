import { z } from 'zod';
import {
  COURSE_ACTIONS,
  createCourse,
  deleteCourse,
  getCourse,
  listCourses,
  transitionCourse,
  updateCourse,
  type CourseAction,
} from '../../domain/courses';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeCourse } from '../serializers/course';
import { Course, CourseCreate, CourseIdParams, CourseListQuery, CourseUpdate } from '../../contracts/course';

const ACTION_SUMMARIES: Record<CourseAction, string> = {
  publish: 'Publish a draft course (409 otherwise)',
  archive: 'Archive a draft or published course (409 when already archived)',
};

export function courseRoutes() {
  const base = { tag: 'Training', auth: 'tenant', scope: 'training:write' } as const;
  const read = { ...base, scope: 'training:read' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/training/courses',
      summary: 'Create a training course (status draft)',
      body: CourseCreate,
      response: Course,
      handler: async ({ body, ctx }) => ({
        data: serializeCourse(await createCourse(ctx, body)),
        message: 'Course created',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/training/courses',
      summary: 'List training courses',
      query: CourseListQuery,
      response: z.array(Course),
      message: 'Courses retrieved',
      serialize: serializeCourse,
      handler: ({ query, ctx }) => listCourses(ctx, query),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/training/courses/:id',
      summary: 'Get a training course',
      params: CourseIdParams,
      response: Course,
      handler: async ({ params, ctx }) => ({
        data: serializeCourse(await getCourse(ctx, params.id)),
        message: 'Course retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/training/courses/:id',
      summary: 'Update a training course (status moves through publish and archive)',
      params: CourseIdParams,
      body: CourseUpdate,
      response: Course,
      handler: async ({ params, body, ctx }) => ({
        data: serializeCourse(await updateCourse(ctx, params.id, body)),
        message: 'Course updated',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/training/courses/:id',
      summary: 'Delete a draft course (published or archived courses: 409, archive instead)',
      params: CourseIdParams,
      response: Course,
      handler: async ({ params, ctx }) => ({
        data: serializeCourse(await deleteCourse(ctx, params.id)),
        message: 'Course deleted',
      }),
    }),
    ...(Object.keys(COURSE_ACTIONS) as CourseAction[]).map((action) =>
      defineRoute({
        ...base,
        method: 'post',
        path: `/v1/training/courses/:id/${action}`,
        summary: ACTION_SUMMARIES[action],
        params: CourseIdParams,
        response: Course,
        status: 200,
        handler: async ({ params, ctx }) => ({
          data: serializeCourse(await transitionCourse(ctx, params.id, action)),
          message: `Course ${COURSE_ACTIONS[action].to}`,
        }),
      }),
    ),
  ];
}
