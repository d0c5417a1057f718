import { In } from 'typeorm';
import { Lead, LeadImport, Opportunity, Partner, StoredFile, Task } from '../db/entities';
import { FILE_ENTITY_TYPES, type FileEntityType } from '../db/entities/stored-file';
import { AppError } from '../lib/errors';
import type { FileSettings } from '../lib/files/create-storage';
import { objectKey, type FileStorage } from '../lib/files/file-storage';
import { removeBytes, sha256Of } from '../lib/files/local-disk';
import { decodeId, encodeId, idTypeOf } from '../lib/ids';
import type { FileListQuery, FileUploadFields } from '../contracts/file';
import type { DomainContext } from './context';
import { recordFileRemoval, removeFileBytes } from './file-removals';
import { assertExists, findForUpdate, findOrFail, pageOf } from './scoped-lookups';
import { unitOfWork } from './unit-of-work';
import { type ScopedData } from '../db/scoped-data';

/** A multipart upload the API spooled to a temporary file, its bytes checked against its type. */
export interface ReceivedUpload {
  tempPath: string;
  filename: string;
  contentType: string;
  size: number;
  fields: Record<string, unknown>;
}

/** A file's owner must exist in the caller's scope. */
const OWNER_ENTITIES = { lead: Lead, partner: Partner, task: Task, opportunity: Opportunity } as const;

/** The owning record's internal ID (null for none); a record the caller cannot see is a 422. */
export async function resolveOwner(
  data: ScopedData,
  fields: { entityType?: FileEntityType; entityId?: string },
): Promise<{ entityType: FileEntityType | null; entityId: string | null }> {
  if (!fields.entityType) return { entityType: null, entityId: null };
  const entityId = decodeId(fields.entityType, fields.entityId) as string;
  const entity = OWNER_ENTITIES[fields.entityType];
  await assertExists(data, entity, entityId, 'entityId', entity.name);
  return { entityType: fields.entityType, entityId };
}

/**
 * Records the file and stores its bytes inside one transaction: if storing fails nothing is
 * recorded. The temporary upload is removed whatever happens.
 */
export async function storeUpload(
  ctx: DomainContext,
  storage: FileStorage,
  upload: ReceivedUpload,
  fields: FileUploadFields,
): Promise<StoredFile> {
  try {
    const sha256 = await sha256Of(upload.tempPath);
    return await unitOfWork(ctx, async (tx) => {
      const file = await tx.repo(StoredFile).insert({
        filename: upload.filename,
        contentType: upload.contentType,
        size: upload.size,
        ...(await resolveOwner(tx, fields)),
        sha256,
        status: 'ready',
        uploadedBy: ctx.actorUserId,
      });
      await storage.put(objectKey(ctx.scope, file.id), { path: upload.tempPath, size: upload.size, contentType: upload.contentType });
      return file;
    });
  } finally {
    await removeBytes(upload.tempPath);
  }
}

export const getFile = (ctx: DomainContext, id: string) => findOrFail(ctx.data, StoredFile, id, 'File');

/** A file whose bytes can be served: a pending direct upload has none yet. */
export async function getReadyFile(ctx: DomainContext, id: string): Promise<StoredFile> {
  const file = await getFile(ctx, id);
  if (file.status !== 'ready') throw new AppError('conflict', 'File upload is not complete yet');
  return file;
}

export async function openContent(ctx: DomainContext, storage: FileStorage, id: string) {
  const file = await getReadyFile(ctx, id);
  return { file, stream: await storage.open(objectKey(ctx.scope, file.id)) };
}

/** Ready files only: a pending upload is not an attachment until it is completed. */
export function listFiles(ctx: DomainContext, f: FileListQuery) {
  const qb = ctx.data.repo(StoredFile).select('f').andWhere(`f.status = 'ready'`);
  if (f.entityType) qb.andWhere('f.entity_type IN (:...type)', { type: f.entityType });
  if (f.entityId) {
    const type = idTypeOf(FILE_ENTITY_TYPES, f.entityId) as FileEntityType;
    // An ID that decodes to nothing names no record: no file matches (`entity_id = NULL` is never true).
    qb.andWhere('f.entity_type = :idType AND f.entity_id = :entityId', { idType: type, entityId: decodeId(type, f.entityId) });
  }
  qb.orderBy('f.created_at', 'DESC').addOrderBy('f.id', 'DESC');
  return pageOf(qb, f.page, f.limit);
}

/**
 * A deleted record's files stay the tenant's, unattached (`entityType` and `entityId` null): they
 * no longer name a record that is gone, and nothing is erased that the tenant did not delete
 * itself (DELETE /v1/files/:id).
 */
export async function detachFiles(data: ScopedData, entityType: FileEntityType, entityId: string): Promise<void> {
  await data.repo(StoredFile).updateWhere({ entityType, entityId }, { entityType: null, entityId: null });
}

/**
 * The record goes in a transaction, with the record of its bytes' removal (domain/file-removals.ts);
 * the bytes after the commit, or by the sweep when that fails.
 */
export async function deleteFile(ctx: DomainContext, settings: FileSettings, id: string): Promise<StoredFile> {
  const { file, removal } = await unitOfWork(ctx, async (tx) => {
    const found = await findForUpdate(tx, StoredFile, id, 'File');
    // An import reads its file chunk by chunk: deleting it midway left the import half done.
    const importing = await tx.repo(LeadImport).findOne({ fileId: id, status: In(['queued', 'running']) });
    if (importing) {
      throw new AppError(
        'conflict',
        `The file is being imported (${encodeId('leadImport', importing.id)}, ${importing.status}); delete it once the import has finished`,
      );
    }
    await tx.repo(StoredFile).deleteById(id);
    return { file: found, removal: await recordFileRemoval(tx, found, settings) };
  });
  await removeFileBytes(ctx.data, settings.storage, removal);
  return file;
}
