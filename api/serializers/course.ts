import type { TrainingCourse } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Course } from '../../contracts/course';

export function serializeCourse(c: TrainingCourse): Course {
  return {
    id: encodeId('course', c.id),
    title: c.title,
    description: c.description,
    status: c.status,
    modulesCount: c.modulesCount,
    enrollmentCount: c.enrollmentCount,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
