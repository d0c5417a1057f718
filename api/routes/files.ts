import type { Readable } from 'node:stream';
import { z } from 'zod';
import { deleteFile, getFile, listFiles, openContent, storeUpload } from '../../domain/files';
import { validationFailed } from '../../lib/errors';
import { attachmentDisposition } from '../../lib/files/content-disposition';
import { removeBytes } from '../../lib/files/local-disk';
import type { AppDeps } from '../http/domain-context';
import { receiveUpload } from '../http/receive-upload';
import { streamBody } from '../http/stream-body';
import { defineListRoute, defineRoute } from '../http/route';
import { toFieldErrors } from '../../lib/zod-errors';
import { serializeFile } from '../serializers/file';
import { directTransferRoutes } from './file-direct-transfers';
import { FileIdParams, FileListQuery, FileUploadFields, FileUploadForm, StoredFileSchema } from '../../contracts/file';

/** Paths whose bodies are multipart: the JSON body parser leaves them to the upload handler. */
export const MULTIPART_PATHS = new Set(['/v1/files/upload']);

export function fileRoutes(deps: AppDeps) {
  const base = { tag: 'Files', auth: 'tenant', scope: 'files:write' } as const;
  const read = { ...base, scope: 'files:read' } as const;
  const { files } = deps;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/files/upload',
      auditResource: 'files',
      summary: 'Upload one file (multipart/form-data: file, entityType, entityId); 413 over the size limit, 415 for refused types',
      multipart: FileUploadForm,
      response: StoredFileSchema,
      handler: async ({ req, res, ctx }) => {
        const upload = await receiveUpload(req, res);
        const fields = FileUploadFields.safeParse(upload.fields);
        if (!fields.success) {
          await removeBytes(upload.tempPath);
          throw validationFailed(toFieldErrors(fields.error));
        }
        return {
          data: serializeFile(await storeUpload(ctx, files.storage, upload, fields.data)),
          message: 'File uploaded',
        };
      },
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/files',
      summary: 'List files, optionally of one owning record (entityType and entityId)',
      query: FileListQuery,
      response: z.array(StoredFileSchema),
      message: 'Files retrieved',
      serialize: serializeFile,
      handler: ({ query, ctx }) => listFiles(ctx, query),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/files/:id',
      summary: "Get a file's metadata",
      params: FileIdParams,
      response: StoredFileSchema,
      handler: async ({ params, ctx }) => ({
        data: serializeFile(await getFile(ctx, params.id)),
        message: 'File retrieved',
      }),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/files/:id/content',
      summary: "Download a file's bytes (as an attachment, with its stored content type); 409 while a direct upload is pending",
      params: FileIdParams,
      response: z.object({ file: StoredFileSchema, stream: z.custom<Readable>() }),
      errors: [409],
      handler: async ({ params, ctx }) => {
        const { file, stream } = await openContent(ctx, files.storage, params.id);
        return { data: { file: serializeFile(file), stream } };
      },
      send: async (res, { file, stream }) => {
        res.setHeader('Content-Type', file.contentType);
        res.setHeader('Content-Length', String(file.size));
        res.setHeader('Content-Disposition', attachmentDisposition(file.filename));
        res.setHeader('X-Content-Type-Options', 'nosniff');
        await streamBody(stream, res);
      },
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/files/:id',
      summary: 'Delete a file and its bytes; 409 while a lead import is reading it',
      params: FileIdParams,
      errors: [409],
      response: StoredFileSchema,
      handler: async ({ params, ctx }) => ({
        data: serializeFile(await deleteFile(ctx, files, params.id)),
        message: 'File deleted',
      }),
    }),
    ...directTransferRoutes(files),
  ];
}
