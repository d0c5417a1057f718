import { AgentExecution } from '../db/entities';
import type { ApprovalStatus } from '../db/entities/agent-execution';
import type { AgentDashboard, AgentExecutionCreate, AgentExecutionListQuery } from '../contracts/agent';
import type { DomainContext } from './context';
import { findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { nextState, type Transitions } from './transitions';
import { unitOfWork } from './unit-of-work';

const APPROVAL_ACTIONS = {
  approve: { from: ['pending'], to: 'approved' },
  reject: { from: ['pending'], to: 'rejected' },
} as const satisfies Transitions<ApprovalStatus, 'approve' | 'reject'>;
const DEFAULT_WINDOW_DAYS = 30;

export function recordExecution(ctx: DomainContext, input: AgentExecutionCreate): Promise<AgentExecution> {
  return ctx.data.repo(AgentExecution).insert({
    agent: input.agent,
    outcome: input.outcome,
    accepted: input.accepted ?? null,
    approvalStatus: input.requiresApproval ? 'pending' : 'not_required',
    approvedBy: null,
    approvedAt: null,
    rejectedBy: null,
    rejectedAt: null,
  });
}

/** Decides an execution waiting for approval (409 for any other), recording who decided and when. */
export function decideExecution(ctx: DomainContext, id: string, action: 'approve' | 'reject'): Promise<AgentExecution> {
  return unitOfWork(ctx, async (tx) => {
    const execution = await findForUpdate(tx, AgentExecution, id, 'Agent execution');
    execution.approvalStatus = nextState('agent execution', APPROVAL_ACTIONS, execution.approvalStatus, action);
    if (action === 'approve') [execution.approvedBy, execution.approvedAt] = [ctx.actorUserId, new Date()];
    else [execution.rejectedBy, execution.rejectedAt] = [ctx.actorUserId, new Date()];
    return tx.repo(AgentExecution).save(execution);
  });
}

export const getExecution = (ctx: DomainContext, id: string) => findOrFail(ctx.data, AgentExecution, id, 'Agent execution');

/** Newest first; the approval queue (approvalStatus=pending alone) oldest first, as it is worked through. */
export function listExecutions(ctx: DomainContext, q: AgentExecutionListQuery) {
  const qb = ctx.data.repo(AgentExecution).select('e');
  if (q.agent) qb.andWhere('e.agent IN (:...agent)', { agent: q.agent });
  if (q.approvalStatus) qb.andWhere('e.approval_status IN (:...status)', { status: q.approvalStatus });
  const order = q.approvalStatus?.length === 1 && q.approvalStatus[0] === 'pending' ? 'ASC' : 'DESC';
  return pageOf(qb.orderBy('e.created_at', order).addOrderBy('e.id', order), q.page, q.limit);
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/**
 * Counts and rates over [dateFrom, dateTo]; pendingApprovals is the current backlog whatever the
 * window. An agent is "active" when it ran in the window, otherwise "idle".
 */
export async function agentDashboard(ctx: DomainContext, q: { dateFrom?: string; dateTo?: string }): Promise<AgentDashboard> {
  const to = q.dateTo ? new Date(q.dateTo) : new Date();
  const from = q.dateFrom ? new Date(q.dateFrom) : new Date(to.getTime() - DEFAULT_WINDOW_DAYS * 86_400_000);
  const stats = await ctx.data
    .repo(AgentExecution)
    .select('e')
    .select('e.agent', 'agent')
    .addSelect('count(*)::int', 'total')
    .addSelect("count(*) FILTER (WHERE e.outcome = 'success')::int", 'successes')
    .addSelect('count(*) FILTER (WHERE e.accepted)::int', 'accepted')
    .andWhere('e.created_at BETWEEN :from AND :to', { from, to })
    .groupBy('e.agent')
    .getRawMany<{ agent: string; total: number; successes: number; accepted: number }>();
  const of = (agent: string) => stats.find((s) => s.agent === agent) ?? { total: 0, successes: 0, accepted: 0 };
  const caller = of('caller');
  const recommender = of('recommender');
  const pendingApprovals = await ctx.data.repo(AgentExecution).count({ approvalStatus: 'pending' });
  return {
    agents: {
      caller: { status: caller.total ? 'active' : 'idle', totalCalls: caller.total, successRate: ratio(caller.successes, caller.total) },
      recommender: {
        status: recommender.total ? 'active' : 'idle',
        totalRecommendations: recommender.total,
        acceptRate: ratio(recommender.accepted, recommender.total),
      },
    },
    recentExecutions: stats.reduce((n, s) => n + s.total, 0),
    pendingApprovals,
  };
}
