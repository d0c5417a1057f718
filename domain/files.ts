import { Lead, Partner, StoredFile, Task } from '../db/entities';
import type { FileEntityType } from '../db/entities/stored-file';
import { scoped } from '../db/scoped-repository';
import { decodeId } from '../lib/ids';
import { moveIntoPlace, removeBytes, sha256Of, storedPath } from '../lib/files/storage';
import { logger } from '../lib/logger';
import type { FileListQuery, FileUploadFields } from '../api/schemas/file';
import type { ReceivedUpload } from '../api/http/receive-upload';
import type { DomainContext } from './context';
import { assertExists, findForUpdate, findOrFail, pageOf } from './scoped-lookups';

/** Owners stored here must exist in the scope; opportunities are not stored on this branch yet. */
const OWNER_ENTITIES = { lead: Lead, partner: Partner, task: Task } as const;

/**
 * Records the file and moves its bytes into place inside one transaction: if the move fails
 * nothing is recorded. The temporary upload is removed whatever happens.
 */
export async function storeUpload(ctx: DomainContext, upload: ReceivedUpload, fields: FileUploadFields): Promise<StoredFile> {
  try {
    const sha256 = await sha256Of(upload.tempPath);
    return await ctx.db.transaction(async (manager) => {
      const entityId = fields.entityType ? (decodeId(fields.entityType, fields.entityId) as string) : null;
      if (fields.entityType && fields.entityType !== 'opportunity') {
        const entity = OWNER_ENTITIES[fields.entityType];
        await assertExists(manager, entity, ctx.scope, entityId, 'entityId', entity.name);
      }
      const file = await scoped(manager, StoredFile, ctx.scope).insert({
        filename: upload.filename,
        contentType: upload.contentType,
        size: upload.size,
        entityType: (fields.entityType ?? null) as FileEntityType | null,
        entityId,
        sha256,
        uploadedBy: ctx.actorUserId,
      });
      await moveIntoPlace(upload.tempPath, ctx.scope, file.id);
      return file;
    });
  } finally {
    await removeBytes(upload.tempPath);
  }
}

export const getFile = (ctx: DomainContext, id: string) => findOrFail(ctx.db.manager, StoredFile, ctx.scope, id, 'File');

export const fileContentPath = (ctx: DomainContext, file: StoredFile) => storedPath(ctx.scope, file.id);

export function listFiles(ctx: DomainContext, f: FileListQuery) {
  const qb = scoped(ctx.db.manager, StoredFile, ctx.scope).query('f');
  if (f.entityType) {
    qb.andWhere('f.entity_type = :type AND f.entity_id = :entityId', { type: f.entityType, entityId: decodeId(f.entityType, f.entityId) });
  }
  qb.orderBy('f.created_at', 'DESC').addOrderBy('f.id', 'DESC');
  return pageOf(qb, f.page, f.limit);
}

/** The record goes in a transaction; the bytes after commit (a failure there only leaves an orphan). */
export async function deleteFile(ctx: DomainContext, id: string): Promise<StoredFile> {
  const file = await ctx.db.transaction(async (manager) => {
    const found = await findForUpdate(manager, StoredFile, ctx.scope, id, 'File');
    await scoped(manager, StoredFile, ctx.scope).deleteById(id);
    return found;
  });
  await removeBytes(storedPath(ctx.scope, file.id)).catch((err) => logger.warn({ err, fileId: id }, 'could not remove file bytes'));
  return file;
}
