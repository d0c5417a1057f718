import type { StatusDefinition } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { StatusDefinitionRecord } from '../../contracts/status-definition';

export function serializeStatusDefinition(s: StatusDefinition): StatusDefinitionRecord {
  return {
    id: encodeId('status', s.id),
    code: s.code,
    name: s.name,
    description: s.description,
    color: s.color,
    sortOrder: s.sortOrder,
    isDefault: s.isDefault,
    isClosed: s.isClosed,
    isWon: s.isWon,
    defaultProbability: s.defaultProbability,
    entityType: s.entityType,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
