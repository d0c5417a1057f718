import type { Task as TaskEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Task } from '../../contracts/task';
import { encodeIdOrNull, isoOrNull } from './encode';

export function serializeTask(t: TaskEntity): Task {
  return {
    id: encodeId('task', t.id),
    title: t.title,
    description: t.description,
    dueAt: isoOrNull(t.dueAt),
    leadId: encodeIdOrNull('lead', t.leadId),
    opportunityId: encodeIdOrNull('opportunity', t.opportunityId),
    assignedTo: encodeIdOrNull('user', t.assignedTo),
    type: t.type as Task['type'],
    status: t.status,
    completedAt: isoOrNull(t.completedAt),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
