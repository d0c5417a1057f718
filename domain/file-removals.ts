import type { DataSource } from 'typeorm';
import { FileRemoval, type StoredFile } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import type { TenantScope } from '../db/scoped-repository';
import { unscoped } from '../db/unscoped';
import type { FileSettings } from '../lib/files/create-storage';
import { objectKey, type FileStorage } from '../lib/files/file-storage';
import { logger } from '../lib/logger';

/** Removals the sweep takes per run; the next run (hourly) takes the rest. */
const BATCH = 500;

/** After an upload URL's expiry, for the seconds between the file's row and the URL's signature, and clocks. */
const URL_EXPIRY_MARGIN_MS = 60_000;

/**
 * When a deleted file's bytes may go for good. S3's presigned PUT of a direct upload (a file
 * without the sha256 the API computes of bytes it received) cannot be revoked: until it expires it
 * stores bytes under the deleted file's key, so its removal waits for that. The local driver's
 * upload URLs refuse a deleted file (domain/signed-file-urls.ts); a multipart upload has none.
 */
function removeAfter(file: StoredFile, settings: FileSettings): Date {
  const now = new Date();
  if (settings.storage.driver !== 's3' || file.sha256 !== null) return now;
  const urlExpired = new Date(file.createdAt.getTime() + settings.urlTtlSeconds * 1000 + URL_EXPIRY_MARGIN_MS);
  return urlExpired > now ? urlExpired : now;
}

/**
 * Records, in the transaction that deletes `file`'s row, that its bytes are to be removed: a
 * removal that fails after the commit (storage unreachable, the process gone) is then retried by
 * the hourly sweep instead of leaving bytes stored for good that the tenant deleted.
 */
export function recordFileRemoval(tx: ScopedData, file: StoredFile, settings: FileSettings): Promise<FileRemoval> {
  return tx.repo(FileRemoval).insert({ fileId: file.id, removeAfter: removeAfter(file, settings) });
}

/**
 * Removes a removal's bytes, then its record when `done` (nothing can store them again); a failure
 * is logged and leaves the record for the next sweep. True when all of it went.
 */
async function removeNow(data: ScopedData, storage: FileStorage, removal: { id: string; fileId: string }, done: boolean): Promise<boolean> {
  try {
    await storage.remove(objectKey(data.scope, removal.fileId));
    if (done) await data.repo(FileRemoval).deleteById(removal.id);
    return true;
  } catch (err) {
    logger.warn({ err, fileId: removal.fileId }, 'could not remove a deleted file’s bytes; the hourly file sweep retries');
    return false;
  }
}

/** Removes the bytes after the delete's commit; the record goes once nothing can store them again. */
export async function removeFileBytes(data: ScopedData, storage: FileStorage, removal: FileRemoval): Promise<void> {
  await removeNow(data, storage, removal, removal.removeAfter <= new Date());
}

/**
 * The sweep's part (pendingUploadSweepWorkflow): every removal that is due, across tenants. A
 * removal that fails again stays for the next run; the others go on.
 */
export async function removeDueFileBytes(db: DataSource, storage: FileStorage): Promise<{ removed: number; failed: number }> {
  // A sweep over every tenant: the one cross-tenant door.
  const due = await unscoped(db).rows<{ id: string; tenant_id: string; environment: TenantScope['environment']; file_id: string }>(
    `SELECT id::text AS id, tenant_id::text AS tenant_id, environment, file_id::text AS file_id FROM file_removals
      WHERE remove_after <= now() ORDER BY remove_after LIMIT ${BATCH}`,
  );
  let removed = 0;
  for (const row of due) {
    const data = new ScopedData(db.manager, { tenantId: row.tenant_id, environment: row.environment });
    if (await removeNow(data, storage, { id: row.id, fileId: row.file_id }, true)) removed++;
  }
  const failed = due.length - removed;
  if (removed || failed) logger.info({ removed, failed }, 'deleted files’ bytes removed');
  return { removed, failed };
}
