import type { SequenceDefinition } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { SequenceDefinitionRecord } from '../../contracts/sequence-definition';

export function serializeSequenceDefinition(w: SequenceDefinition): SequenceDefinitionRecord {
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
