import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Router } from 'express';
import type { DataSource } from 'typeorm';
import { streamBody } from '../http/stream-body';
import type { FileSettings } from '../../lib/files/create-storage';
import { AppError, notFound } from '../../lib/errors';
import { ApiSignedUrls } from '../../lib/files/api-signed-urls';
import { attachmentDisposition } from '../../lib/files/content-disposition';
import { removeBytes, uploadTempDir } from '../../lib/files/local-disk';
import { assertUrlFileExists, storeUrlUpload } from '../../domain/signed-file-urls';

/** Bodies here are raw bytes: the JSON body check leaves them alone. */
export const FILE_URL_PREFIX = '/v1/files/direct/';

const refused = (message: string) => new AppError('forbidden', message);

/** Whether this API answers the file URLs it signs (the local driver; S3's URLs point at the bucket). */
export const servesSignedFileUrls = (files: FileSettings) => files.storage.direct instanceof ApiSignedUrls;

/**
 * The local driver's presigned URLs, answered like S3 answers its own: no API key, the token is
 * the permission; a bad or expired token, or a Content-Type or length other than signed, is 403.
 * The URL stays usable until it expires, as on S3: a PUT after completion replaces the bytes;
 * but not once its file is deleted (404, domain/signed-file-urls.ts).
 */
export function fileUrlRoutes(files: FileSettings, db: DataSource): Router {
  const router = Router();
  const signer = files.storage.direct;
  if (!(signer instanceof ApiSignedUrls)) return router;

  router.put(`${FILE_URL_PREFIX}:token`, async (req, res) => {
    const claims = signer.verify(String(req.params.token), 'PUT');
    if (!claims) throw refused('The upload URL is invalid or has expired');
    // Node reads exactly Content-Length bytes, so checking the header bounds the body.
    if (req.get('content-type') !== claims.t || req.get('content-length') !== String(claims.s)) {
      throw refused('Content-Type and Content-Length must be the ones the URL was issued for');
    }
    await assertUrlFileExists(db, claims.k, 'PUT');
    await mkdir(uploadTempDir(), { recursive: true });
    const tempPath = path.join(uploadTempDir(), randomUUID());
    try {
      await pipeline(req, createWriteStream(tempPath));
      await storeUrlUpload(db, files.storage, claims.k, { path: tempPath, size: claims.s as number, contentType: claims.t });
    } finally {
      await removeBytes(tempPath);
    }
    res.status(200).end();
  });

  router.get(`${FILE_URL_PREFIX}:token`, async (req, res) => {
    const claims = signer.verify(String(req.params.token), 'GET');
    if (!claims) throw refused('The download URL is invalid or has expired');
    await assertUrlFileExists(db, claims.k, 'GET');
    const stored = await files.storage.head(claims.k);
    if (!stored) throw notFound('File');
    const stream = await files.storage.open(claims.k);
    res.setHeader('Content-Type', claims.t);
    res.setHeader('Content-Length', String(stored.size));
    res.setHeader('Content-Disposition', attachmentDisposition(claims.n ?? 'file'));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await streamBody(stream, res);
  });
  return router;
}
