import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const TASK_TYPES = ['call', 'email', 'meeting', 'note', 'other'] as const;
export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

@Entity({ name: 'tasks' })
@Index('ix_tasks_scope_due', ['tenantId', 'environment', 'dueAt'])
@Index('ix_tasks_scope_assignee', ['tenantId', 'environment', 'assignedTo'])
@Index('ix_tasks_scope_lead', ['tenantId', 'environment', 'leadId'])
@Index('ix_tasks_scope_opportunity', ['tenantId', 'environment', 'opportunityId'], { where: 'opportunity_id IS NOT NULL' })
export class Task extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ name: 'lead_id', type: 'bigint', nullable: true })
  leadId: string | null;

  @Column({ name: 'opportunity_id', type: 'bigint', nullable: true })
  opportunityId: string | null;

  @Column({ name: 'assigned_to', type: 'bigint', nullable: true })
  assignedTo: string | null;

  @Column({ type: 'varchar', length: 10, default: 'other' })
  type: string;

  @Column({ type: 'varchar', length: 12, default: 'pending' })
  status: TaskStatus;

  @Column({ name: 'created_by', type: 'bigint', nullable: true })
  createdBy: string | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
