import { z } from 'zod';
import { COURSE_STATUSES } from '../db/entities/course';
import { encodedId, nonBlank, PaginationQuery, sortQuery } from './common';
import { anyOf } from './list-filters';

export const CourseCreate = z
  .object({
    title: nonBlank(200),
    description: z.string().max(10_000).nullable().optional(),
    modulesCount: z.number().int().min(0).max(1000).optional(),
  })
  .strict()
  .meta({ id: 'CourseCreate' });
export type CourseCreate = z.output<typeof CourseCreate>;

export const CourseUpdate = CourseCreate.partial().strict().meta({ id: 'CourseUpdate' });
export type CourseUpdate = z.output<typeof CourseUpdate>;

export const Course = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    status: z.enum(COURSE_STATUSES),
    modulesCount: z.number().int(),
    enrollmentCount: z.number().int().meta({ description: 'Read-only; enrolments are not recorded by this API yet' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Course' });
export type Course = z.output<typeof Course>;

export const CourseListQuery = PaginationQuery.extend({
  sort: sortQuery(['createdAt', 'updatedAt', 'title'] as const, 'createdAt:desc'),
  status: anyOf(COURSE_STATUSES).optional(),
});
export type CourseListQuery = z.output<typeof CourseListQuery>;

export const CourseIdParams = z.object({ id: encodedId('course') });
