import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import type { Request, Response } from 'express';
import multer from 'multer';
import { config } from '../../lib/config';
import { AppError } from '../../lib/errors';
import { ALLOWED_UPLOAD_TYPES, contentMatchesType, contentMismatch, EMPTY_FILE, SIGNATURE_BYTES } from '../../lib/files/allowed-types';
import { uploadTempDir } from '../../lib/files/local-disk';
import { safeFileName } from '../../lib/files/safe-name';
import type { ReceivedUpload } from '../../domain/files';

/** Only the part named `file`, one of it, and a few short text fields. */
function uploader() {
  const dir = uploadTempDir();
  mkdirSync(dir, { recursive: true });
  return multer({
    dest: dir,
    defParamCharset: 'utf8',
    limits: { fileSize: config.FILE_UPLOAD_MAX_BYTES, files: 1, fields: 5, fieldSize: 200, parts: 6 },
    fileFilter: (_req, file, cb) =>
      ALLOWED_UPLOAD_TYPES.has(file.mimetype)
        ? cb(null, true)
        : cb(new AppError('unsupported_media_type', `Files of type ${file.mimetype} are not accepted`)),
  }).single('file');
}

function toAppError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  // busboy's parse errors (no boundary, truncated form, malformed part header) carry no `code`;
  // file-system errors (ENOSPC, EACCES) do, and stay server errors.
  if (err instanceof Error && !(err instanceof multer.MulterError) && !('code' in err))
    return new AppError('bad_request', 'Malformed multipart body', [{ field: 'body', message: err.message }]);
  if (!(err instanceof multer.MulterError)) return err;
  if (err.code === 'LIMIT_FILE_SIZE')
    return new AppError(
      'payload_too_large',
      `File exceeds the ${config.FILE_UPLOAD_MAX_BYTES.toLocaleString('en-US')}-byte limit of this endpoint; upload larger files with POST /v1/files/uploads (a presigned URL)`,
    );
  if (err.code === 'LIMIT_UNEXPECTED_FILE') {
    const message = err.field === 'file' ? 'Send one file per upload' : `Unexpected file part "${err.field}"; name the file part "file"`;
    return new AppError('validation_failed', 'Validation failed', [{ field: 'file', message }]);
  }
  const field = err.code === 'LIMIT_FILE_COUNT' ? 'file' : (err.field ?? 'form');
  return new AppError('validation_failed', 'Validation failed', [{ field, message: err.message }]);
}

/** Streams a multipart request's file to a temporary file; the caller moves or removes it. */
export async function receiveUpload(req: Request, res: Response): Promise<ReceivedUpload> {
  if (!req.is('multipart/form-data')) throw new AppError('unsupported_media_type', 'Content-Type must be multipart/form-data');
  await new Promise<void>((resolve, reject) => uploader()(req, res, (err?: unknown) => (err ? reject(toAppError(err)) : resolve())));
  if (!req.file) throw new AppError('validation_failed', 'Validation failed', [{ field: 'file', message: 'Required' }]);
  // Empty before mismatched: there is no content to be of another type.
  const refused =
    req.file.size === 0
      ? EMPTY_FILE
      : !contentMatchesType(req.file.mimetype, await headOf(req.file.path))
        ? contentMismatch(req.file.mimetype)
        : null;
  if (refused) {
    await rm(req.file.path, { force: true });
    throw new AppError('validation_failed', 'Validation failed', [{ field: 'file', message: refused }]);
  }
  return {
    tempPath: req.file.path,
    filename: safeFileName(req.file.originalname),
    contentType: req.file.mimetype,
    size: req.file.size,
    fields: { ...(req.body as Record<string, unknown>) },
  };
}

async function headOf(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SIGNATURE_BYTES);
    const { bytesRead } = await file.read(buffer, 0, SIGNATURE_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}
