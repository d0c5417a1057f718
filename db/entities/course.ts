import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const COURSE_STATUSES = ['draft', 'published', 'archived'] as const;
export type CourseStatus = (typeof COURSE_STATUSES)[number];

@Entity({ name: 'training_courses' })
@Index('ix_training_courses_scope_created', ['tenantId', 'environment', 'createdAt'])
export class TrainingCourse extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 10, default: 'draft' })
  status: CourseStatus;

  @Column({ name: 'modules_count', type: 'integer', default: 0 })
  modulesCount: number;

  /** Kept as a counter: enrolments themselves are not modelled yet. */
  @Column({ name: 'enrollment_count', type: 'integer', default: 0 })
  enrollmentCount: number;
}
