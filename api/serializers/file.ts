import type { StoredFile } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { PresignedRequest } from '../../lib/files/file-storage';
import type { PresignedRequestSchema, StoredFileSchema } from '../../contracts/file';

export function serializeFile(f: StoredFile): StoredFileSchema {
  return {
    id: encodeId('file', f.id),
    filename: f.filename,
    contentType: f.contentType,
    size: f.size,
    entityType: f.entityType,
    entityId: f.entityType && f.entityId ? encodeId(f.entityType, f.entityId) : null,
    sha256: f.sha256,
    status: f.status,
    createdAt: f.createdAt.toISOString(),
  };
}

export const serializePresigned = (p: PresignedRequest): PresignedRequestSchema => ({ ...p, expiresAt: p.expiresAt.toISOString() });
