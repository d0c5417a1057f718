import type { SequenceDefinition } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import { DEFAULT_CONDITION_WINDOW } from '../../workflows/campaign-graph';
import type { SequenceDefinitionRecord, WorkflowNode } from '../../contracts/sequence-definition';
import { conditionWindowWarnings } from '../../contracts/sequence-graph-rules';

const DEFAULT_WINDOW_TEXT = `${DEFAULT_CONDITION_WINDOW.duration} ${DEFAULT_CONDITION_WINDOW.durationUnit}`;

/** Conditions show the window in effect: the stored one, else the default that the sequence applies. */
const withWindow = (n: WorkflowNode): WorkflowNode =>
  n.type === 'condition' && n.data.conditionField !== 'lead_status' && !n.data.window
    ? { ...n, data: { ...n.data, window: { ...DEFAULT_CONDITION_WINDOW } } }
    : n;

export function serializeSequenceDefinition(w: SequenceDefinition): SequenceDefinitionRecord {
  return {
    id: encodeId('workflow', w.id),
    name: w.name,
    description: w.description,
    nodes: w.nodes.map(withWindow),
    edges: w.edges,
    version: w.version,
    warnings: conditionWindowWarnings(w, DEFAULT_WINDOW_TEXT),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}
