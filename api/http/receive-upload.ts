import type { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { Request, Response } from 'express';
import multer from 'multer';
import { config } from '../../lib/config';
import { AppError, GIVEN_MORE_THAN_ONCE } from '../../lib/errors';
import { ALLOWED_UPLOAD_TYPES, contentMatchesType, contentMismatch, EMPTY_FILE, SIGNATURE_BYTES } from '../../lib/files/allowed-types';
import { uploadTempDir } from '../../lib/files/local-disk';
import { safeFileName } from '../../lib/files/safe-name';
import type { ReceivedUpload } from '../../domain/files';

/** multer's option that feeds the request to busboy (multer 2.x has it; @types/multer does not yet). */
type WithStreamHandler = multer.Options & { streamHandler: (req: Request, busboy: Writable & EventEmitter) => void };

/**
 * Only the part named `file`, one of it, and a few short text fields. Two file parts are let
 * through to multer's filter, which names the second's part (a `files: 1` limit said only "Too
 * many files"); its bytes are never stored. `fieldCounts` counts each text field's name as busboy
 * reads it: multer makes a repeated field an array, which the schema would call the wrong type.
 */
function uploader(fieldCounts: Map<string, number>) {
  const dir = uploadTempDir();
  mkdirSync(dir, { recursive: true });
  const options: WithStreamHandler = {
    dest: dir,
    defParamCharset: 'utf8',
    limits: { fileSize: config.FILE_UPLOAD_MAX_BYTES, files: 2, fields: 5, fieldSize: 200, parts: 6 },
    fileFilter: (_req, file, cb) =>
      ALLOWED_UPLOAD_TYPES.has(file.mimetype)
        ? cb(null, true)
        : cb(new AppError('unsupported_media_type', `Files of type ${file.mimetype} are not accepted`)),
    streamHandler: (req, busboy) => {
      busboy.on('field', (name: string) => fieldCounts.set(name, (fieldCounts.get(name) ?? 0) + 1));
      req.pipe(busboy);
    },
  };
  return multer(options).single('file');
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
    const message =
      err.field === 'file'
        ? 'Given more than once; send one file per upload'
        : `Unexpected file part "${err.field}"; name the file part "file"`;
    return new AppError('validation_failed', 'Validation failed', [{ field: 'file', message }]);
  }
  const field = err.code === 'LIMIT_FILE_COUNT' ? 'file' : (err.field ?? 'form');
  return new AppError('validation_failed', 'Validation failed', [{ field, message: err.message }]);
}

/** Streams a multipart request's file to a temporary file; the caller moves or removes it. */
export async function receiveUpload(req: Request, res: Response): Promise<ReceivedUpload> {
  if (!req.is('multipart/form-data')) throw new AppError('unsupported_media_type', 'Content-Type must be multipart/form-data');
  const fieldCounts = new Map<string, number>();
  await new Promise<void>((resolve, reject) =>
    uploader(fieldCounts)(req, res, (err?: unknown) => (err ? reject(toAppError(err)) : resolve())),
  );
  const repeated = [...fieldCounts].filter(([, count]) => count > 1).map(([field]) => ({ field, message: GIVEN_MORE_THAN_ONCE }));
  if (repeated.length > 0) {
    if (req.file) await rm(req.file.path, { force: true });
    throw new AppError('validation_failed', 'Validation failed', repeated);
  }
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
