import { StoredFile } from '../db/entities';
import { AppError } from '../lib/errors';
import type { FileSettings } from '../lib/files/create-storage';
import { contentMatchesType, contentMismatch, SIGNATURE_BYTES } from '../lib/files/allowed-types';
import { objectKey, type FileStorage } from '../lib/files/file-storage';
import type { DirectUploadCreate } from '../contracts/file';
import type { DomainContext } from './context';
import { getReadyFile, resolveOwner } from './files';
import { findForUpdate } from './scoped-lookups';
import { unitOfWork } from './unit-of-work';

/** Records a pending file and presigns the PUT of its bytes; completion checks what arrived. */
export async function startDirectUpload(ctx: DomainContext, settings: FileSettings, body: DirectUploadCreate) {
  const file = await unitOfWork(ctx, async (tx) =>
    tx.repo(StoredFile).insert({
      filename: body.fileName,
      contentType: body.contentType,
      size: body.size,
      ...(await resolveOwner(tx, body)),
      sha256: null,
      status: 'pending',
      uploadedBy: ctx.actorUserId,
    }),
  );
  const upload = await settings.storage.direct.uploadUrl(objectKey(ctx.scope, file.id), file, settings.urlTtlSeconds);
  return { file, upload };
}

/** The stored object's first bytes, enough for `contentMatchesType` (the rest is not read). */
async function firstBytes(storage: FileStorage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of await storage.open(key)) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
    if (length >= SIGNATURE_BYTES) break; // ends the stream (and an S3 download) early
  }
  return Buffer.concat(chunks).subarray(0, SIGNATURE_BYTES);
}

/**
 * Marks a direct upload ready once its object is stored with the declared size and type, its
 * first bytes what that type starts with (as a multipart upload is checked). An
 * object that does not match is removed, so a pending file never keeps unchecked bytes; the
 * client may PUT again while the URL lasts.
 */
export function completeDirectUpload(ctx: DomainContext, settings: FileSettings, id: string): Promise<StoredFile> {
  return unitOfWork(ctx, async (tx) => {
    const file = await findForUpdate(tx, StoredFile, id, 'File');
    if (file.status === 'ready') throw new AppError('conflict', 'File upload is already complete');
    const key = objectKey(ctx.scope, file.id);
    const stored = await settings.storage.head(key);
    if (!stored) throw new AppError('conflict', 'Nothing has been uploaded for this file yet');
    const mismatch =
      stored.size !== file.size
        ? `${stored.size} bytes were uploaded; ${file.size} were declared`
        : stored.contentType && stored.contentType !== file.contentType
          ? `${stored.contentType} was uploaded; ${file.contentType} was declared`
          : !contentMatchesType(file.contentType, await firstBytes(settings.storage, key))
            ? contentMismatch(file.contentType)
            : null;
    if (mismatch) {
      await settings.storage.remove(key);
      throw new AppError('conflict', `Upload does not match the file: ${mismatch}`);
    }
    file.status = 'ready';
    return tx.repo(StoredFile).save(file);
  });
}

export async function presignDownload(ctx: DomainContext, settings: FileSettings, id: string) {
  const file = await getReadyFile(ctx, id);
  return settings.storage.direct.downloadUrl(objectKey(ctx.scope, file.id), file, settings.urlTtlSeconds);
}
