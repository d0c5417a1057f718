import type { WorkflowDefinition } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { WorkflowDefinitionRecord } from '../../contracts/workflow-definition';

export function serializeWorkflowDefinition(w: WorkflowDefinition): WorkflowDefinitionRecord {
  return {
    id: encodeId('workflow', w.id),
    name: w.name,
    description: w.description,
    nodes: w.nodes,
    edges: w.edges,
    version: w.version,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}
