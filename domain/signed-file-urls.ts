import type { DataSource, EntityManager } from 'typeorm';
import { StoredFile } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import { AppError, notFound } from '../lib/errors';
import { parseObjectKey, type FileStorage } from '../lib/files/file-storage';

/**
 * The local driver's presigned URLs (api/routes/file-urls.ts) name their file by its object key,
 * and are sealed for the URL's whole lifetime. The file's record decides whether they still work:
 * once DELETE /v1/files/:id removed it, its upload URL stores nothing and its download URL serves
 * nothing, though the token has not expired (a 404, as S3 answers for a deleted object).
 */

const WHAT_TO_DO = {
  PUT: 'its upload URL no longer accepts bytes; start a new upload with POST /v1/files/uploads',
  GET: 'its download URL no longer serves it',
};

type Method = keyof typeof WHAT_TO_DO;

const deleted = (method: Method) => new AppError('not_found', `File not found: it was deleted, so ${WHAT_TO_DO[method]}`);

/** The file `key` names, looked up in its own scope on `manager` (held with `lock` until its transaction ends); null once deleted. */
async function fileOf(manager: EntityManager, key: string, lock: 'none' | 'key share'): Promise<StoredFile | null> {
  const parsed = parseObjectKey(key);
  if (!parsed) throw notFound('File'); // no key the server builds: as the storage answers it
  const files = new ScopedData(manager, parsed.scope).repo(StoredFile);
  return lock === 'none' ? files.findById(parsed.fileId) : files.findByIdForKeyShare(parsed.fileId);
}

/** Refuses a URL whose file was deleted: checked before an upload's bytes are read or a download's are sent. */
export async function assertUrlFileExists(db: DataSource, key: string, method: Method): Promise<void> {
  if (!(await fileOf(db.manager, key, 'none'))) throw deleted(method);
}

/**
 * Stores a presigned upload's bytes while its file exists. The file is held (FOR KEY SHARE, which
 * DELETE's FOR UPDATE waits for) while the bytes are moved in, so a delete that committed first
 * leaves nothing stored, and one that comes meanwhile waits, then removes what was stored (it
 * removes the bytes after its commit). Only the local driver's move runs under the lock.
 */
export function storeUrlUpload(
  db: DataSource,
  storage: FileStorage,
  key: string,
  source: { path: string; size: number; contentType: string },
) {
  return db.transaction(async (manager) => {
    if (!(await fileOf(manager, key, 'key share'))) throw deleted('PUT');
    await storage.put(key, source);
  });
}
