import { TrainingCourse } from '../db/entities';
import type { CourseStatus } from '../db/entities/course';
import { scoped } from '../db/scoped-repository';
import { AppError } from '../lib/errors';
import type { CourseCreate, CourseListQuery, CourseUpdate } from '../api/schemas/course';
import type { DomainContext } from './context';
import { findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { nextState, type Transitions } from './transitions';

export const COURSE_ACTIONS = {
  publish: { from: ['draft'], to: 'published' },
  archive: { from: ['draft', 'published'], to: 'archived' },
} as const satisfies Transitions<CourseStatus, string>;
export type CourseAction = keyof typeof COURSE_ACTIONS;

export function createCourse(ctx: DomainContext, input: CourseCreate): Promise<TrainingCourse> {
  return scoped(ctx.db.manager, TrainingCourse, ctx.scope).insert({
    title: input.title,
    description: input.description ?? null,
    modulesCount: input.modulesCount ?? 0,
    status: 'draft',
    enrollmentCount: 0,
  });
}

export const getCourse = (ctx: DomainContext, id: string) => findOrFail(ctx.db.manager, TrainingCourse, ctx.scope, id, 'Course');

const SORT_COLUMNS: Record<CourseListQuery['sort']['field'], string> = {
  createdAt: 'c.created_at',
  updatedAt: 'c.updated_at',
  title: 'c.title',
};

export function listCourses(ctx: DomainContext, f: CourseListQuery) {
  const qb = scoped(ctx.db.manager, TrainingCourse, ctx.scope).query('c');
  if (f.status) qb.andWhere('c.status = :status', { status: f.status });
  qb.orderBy(SORT_COLUMNS[f.sort.field], f.sort.direction).addOrderBy('c.id', f.sort.direction);
  return pageOf(qb, f.page, f.limit);
}

export function updateCourse(ctx: DomainContext, id: string, patch: CourseUpdate): Promise<TrainingCourse> {
  return ctx.db.transaction(async (manager) => {
    const course = await findForUpdate(manager, TrainingCourse, ctx.scope, id, 'Course');
    Object.assign(course, patch);
    return scoped(manager, TrainingCourse, ctx.scope).save(course);
  });
}

/** Only drafts can be deleted: a course learners have seen is archived instead. */
export function deleteCourse(ctx: DomainContext, id: string): Promise<TrainingCourse> {
  return ctx.db.transaction(async (manager) => {
    const course = await findForUpdate(manager, TrainingCourse, ctx.scope, id, 'Course');
    if (course.status !== 'draft') throw new AppError('conflict', `Cannot delete a course that is ${course.status}; archive it instead`);
    await scoped(manager, TrainingCourse, ctx.scope).deleteById(id);
    return course;
  });
}

export function transitionCourse(ctx: DomainContext, id: string, action: CourseAction): Promise<TrainingCourse> {
  return ctx.db.transaction(async (manager) => {
    const course = await findForUpdate(manager, TrainingCourse, ctx.scope, id, 'Course');
    course.status = nextState('course', COURSE_ACTIONS, course.status, action);
    return scoped(manager, TrainingCourse, ctx.scope).save(course);
  });
}
