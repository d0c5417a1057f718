import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const AGENTS = ['caller', 'recommender'] as const;
export type AgentName = (typeof AGENTS)[number];
export const AGENT_OUTCOMES = ['success', 'failure'] as const;
export const APPROVAL_STATUSES = ['not_required', 'pending', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

@Entity({ name: 'agent_executions' })
@Index('ix_agent_executions_scope_created', ['tenantId', 'environment', 'createdAt'])
// The approval queue (GET /v1/agents/executions?approvalStatus=pending, the dashboard's backlog).
@Index('ix_agent_executions_scope_pending', ['tenantId', 'environment', 'createdAt'], { where: "approval_status = 'pending'" })
export class AgentExecution extends TenantOwned {
  @Column({ type: 'varchar', length: 20 })
  agent: AgentName;

  @Column({ type: 'varchar', length: 10 })
  outcome: string;

  /** For recommendations: whether the user took it; null when not (yet) known. */
  @Column({ type: 'boolean', nullable: true })
  accepted: boolean | null;

  @Column({ name: 'approval_status', type: 'varchar', length: 12, default: 'not_required' })
  approvalStatus: ApprovalStatus;

  @Column({ name: 'approved_by', type: 'bigint', nullable: true })
  approvedBy: string | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt: Date | null;

  @Column({ name: 'rejected_by', type: 'bigint', nullable: true })
  rejectedBy: string | null;

  @Column({ name: 'rejected_at', type: 'timestamptz', nullable: true })
  rejectedAt: Date | null;
}
