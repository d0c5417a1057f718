import type { ApiKey as ApiKeyEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { ApiKey } from '../../contracts/api-key';

/** Never includes the hash; the full key exists only in the creation response. */
export function serializeApiKey(k: ApiKeyEntity): ApiKey {
  return {
    id: encodeId('apiKey', k.id),
    name: k.name,
    keyPrefix: k.keyPrefix,
    environment: k.environment,
    status: k.status,
    scopes: k.scopes,
    createdBy: encodeId('user', k.ownerUserId),
    expiresAt: k.expiresAt?.toISOString() ?? null,
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    createdAt: k.createdAt.toISOString(),
  };
}
