import type { DataSource } from 'typeorm';
import type { WorkflowNode } from '../../contracts/sequence-definition';
import { CampaignEnrollment, Lead, Task } from '../../db/entities';
import { changedFields } from '../../domain/leads/leads';
import { holdsLeadStatus } from '../../domain/leads/statuses';
import { indexLead } from '../../domain/search-index';
import { unitOfWork } from '../../domain/unit-of-work';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { EnrollmentRef } from '.';

type ActionData = Extract<WorkflowNode, { type: 'action' }>['data'];

/**
 * Applies an action node to the lead once: the node ID is added to the enrollment's applied
 * actions in the same transaction, so a retried score change or task does not happen twice. A task
 * goes to the lead's assignee. A status or score the action changes is a `lead.updated` (and a new
 * status is re-indexed for search), as if the lead were patched; the events are relayed after the
 * commit, with the outbox sweep behind them.
 */
export function runCampaignAction(db: DataSource, workflows: WorkflowStarter) {
  return (input: EnrollmentRef & { nodeId: string; action: ActionData }): Promise<{ outcome: 'applied' | 'already_applied' | 'skipped' }> =>
    unitOfWork({ db, workflows, scope: { tenantId: input.tenantId, environment: input.environment } }, async (tx) => {
      const enrollments = tx.repo(CampaignEnrollment);
      const enrollment = await enrollments
        .select('e')
        .andWhere('e.id = :id', { id: input.enrollmentId })
        .setLock('pessimistic_write')
        .getOne();
      if (!enrollment || enrollment.appliedActions.includes(input.nodeId)) return { outcome: 'already_applied' as const };
      const leads = tx.repo(Lead);
      const lead = await leads.findByIdForUpdate(input.leadId);
      if (!lead) return { outcome: 'skipped' as const };
      if (input.action.actionType === 'create_task') {
        const task = await tx.repo(Task).insert({
          title: input.action.taskTitle ?? input.action.label ?? 'Follow up',
          description: `Created by a campaign sequence (node ${input.nodeId})`,
          leadId: lead.id,
          assignedTo: lead.assignedTo,
          type: 'other',
          status: 'pending',
          createdBy: lead.assignedTo,
        });
        await tx.emit('task.created', { id: task.id, title: task.title, assigneeId: task.assignedTo });
      } else if (
        input.action.actionType === 'update_lead_status' &&
        input.action.status &&
        !(await holdsLeadStatus(tx, input.action.status))
      ) {
        // Checked when the definition was saved; deleted since. No lead gets a status nobody defines:
        // one that is there is held until the commit, so its delete waits for this lead, then refuses.
        logger.warn(
          { campaignId: input.campaignId, leadId: input.leadId, nodeId: input.nodeId, status: input.action.status },
          'campaign action names a lead status that no longer exists: lead left as it is',
        );
      } else {
        const change =
          input.action.actionType === 'update_lead_status'
            ? { status: input.action.status ?? lead.status }
            : { score: Math.min(100, Math.max(0, lead.score + (input.action.scoreDelta ?? 0))) };
        const changes = changedFields(lead, change, undefined);
        if (Object.keys(changes).length) {
          const saved = await leads.save(Object.assign(lead, change));
          if ('status' in changes) await indexLead(tx, saved);
          await tx.emit('lead.updated', { id: lead.id, changes });
        }
      }
      enrollment.appliedActions = [...enrollment.appliedActions, input.nodeId];
      await enrollments.save(enrollment);
      return { outcome: 'applied' as const };
    });
}
