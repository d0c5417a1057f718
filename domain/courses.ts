import { TrainingCourse } from '../db/entities';
import type { CourseStatus } from '../db/entities/course';
import { AppError } from '../lib/errors';
import type { CourseCreate, CourseListQuery, CourseUpdate } from '../contracts/course';
import type { DomainContext } from './context';
import { findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { nextState, type Transitions } from './transitions';
import { unitOfWork } from './unit-of-work';

export const COURSE_ACTIONS = {
  publish: { from: ['draft'], to: 'published' },
  archive: { from: ['draft', 'published'], to: 'archived' },
} as const satisfies Transitions<CourseStatus, string>;
export type CourseAction = keyof typeof COURSE_ACTIONS;

export function createCourse(ctx: DomainContext, input: CourseCreate): Promise<TrainingCourse> {
  return ctx.data.repo(TrainingCourse).insert({
    title: input.title,
    description: input.description ?? null,
    modulesCount: input.modulesCount ?? 0,
    status: 'draft',
    enrollmentCount: 0,
  });
}

export const getCourse = (ctx: DomainContext, id: string) => findOrFail(ctx.data, TrainingCourse, id, 'Course');

const SORT_COLUMNS: Record<CourseListQuery['sort']['field'], string> = {
  createdAt: 'c.created_at',
  updatedAt: 'c.updated_at',
  title: 'c.title',
};

export function listCourses(ctx: DomainContext, f: CourseListQuery) {
  const qb = ctx.data.repo(TrainingCourse).select('c');
  if (f.status) qb.andWhere('c.status IN (:...status)', { status: f.status });
  qb.orderBy(SORT_COLUMNS[f.sort.field], f.sort.direction).addOrderBy('c.id', f.sort.direction);
  return pageOf(qb, f.page, f.limit);
}

export function updateCourse(ctx: DomainContext, id: string, patch: CourseUpdate): Promise<TrainingCourse> {
  return unitOfWork(ctx, async (tx) => {
    const course = await findForUpdate(tx, TrainingCourse, id, 'Course');
    Object.assign(course, patch);
    return tx.repo(TrainingCourse).save(course);
  });
}

/** Only drafts can be deleted: a course learners have seen is archived instead. */
export function deleteCourse(ctx: DomainContext, id: string): Promise<TrainingCourse> {
  return unitOfWork(ctx, async (tx) => {
    const course = await findForUpdate(tx, TrainingCourse, id, 'Course');
    if (course.status !== 'draft') throw new AppError('conflict', `Cannot delete a course that is ${course.status}; archive it instead`);
    await tx.repo(TrainingCourse).deleteById(id);
    return course;
  });
}

export function transitionCourse(ctx: DomainContext, id: string, action: CourseAction): Promise<TrainingCourse> {
  return unitOfWork(ctx, async (tx) => {
    const course = await findForUpdate(tx, TrainingCourse, id, 'Course');
    course.status = nextState('course', COURSE_ACTIONS, course.status, action);
    return tx.repo(TrainingCourse).save(course);
  });
}
