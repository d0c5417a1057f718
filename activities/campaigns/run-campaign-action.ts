import type { DataSource } from 'typeorm';
import type { WorkflowNode } from '../../contracts/sequence-definition';
import { CampaignEnrollment, Lead, Task } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { emitEvent } from '../../domain/webhooks/emit-event';
import { eventPayloads } from '../../contracts/webhook-events';
import type { EnrollmentRef } from '.';

type ActionData = Extract<WorkflowNode, { type: 'action' }>['data'];

/**
 * Applies an action node to the lead once: the node ID is added to the enrollment's applied
 * actions in the same transaction, so a retried score change or task does not happen twice. A task
 * goes to the lead's assignee; its task.created event is delivered by the outbox sweep.
 */
export function runCampaignAction(db: DataSource) {
  return async (
    input: EnrollmentRef & { nodeId: string; action: ActionData },
  ): Promise<{ outcome: 'applied' | 'already_applied' | 'skipped' }> => {
    return db.transaction(async (m) => {
      const data = new ScopedData(m, input);
      const enrollments = data.repo(CampaignEnrollment);
      const enrollment = await enrollments
        .select('e')
        .andWhere('e.id = :id', { id: input.enrollmentId })
        .setLock('pessimistic_write')
        .getOne();
      if (!enrollment || enrollment.appliedActions.includes(input.nodeId)) return { outcome: 'already_applied' as const };
      const leads = data.repo(Lead);
      const lead = await leads.findByIdForUpdate(input.leadId);
      if (!lead) return { outcome: 'skipped' as const };
      if (input.action.actionType === 'create_task') {
        const task = await data.repo(Task).insert({
          title: input.action.taskTitle ?? input.action.label ?? 'Follow up',
          description: `Created by a campaign sequence (node ${input.nodeId})`,
          leadId: lead.id,
          assignedTo: lead.assignedTo,
          type: 'other',
          status: 'pending',
          createdBy: lead.assignedTo,
        });
        await emitEvent(
          data,
          'task.created',
          eventPayloads['task.created']({ id: task.id, title: task.title, assigneeId: task.assignedTo }),
        );
      } else {
        const change =
          input.action.actionType === 'update_lead_status'
            ? { status: input.action.status ?? lead.status }
            : { score: Math.min(100, Math.max(0, lead.score + (input.action.scoreDelta ?? 0))) };
        await leads.updateWhere({ id: lead.id }, change);
      }
      enrollment.appliedActions = [...enrollment.appliedActions, input.nodeId];
      await enrollments.save(enrollment);
      return { outcome: 'applied' as const };
    });
  };
}
