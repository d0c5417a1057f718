import { completeDirectUpload, presignDownload, startDirectUpload } from '../../domain/file-direct-transfers';
import type { FileSettings } from '../../lib/files/create-storage';
import { defineRoute } from '../http/route';
import { serializeFile, serializePresigned } from '../serializers/file';
import { DirectUploadCreate, DirectUploadSchema, FileIdParams, PresignedRequestSchema, StoredFileSchema } from '../../contracts/file';

/** Presigned uploads and downloads: with S3 the bytes go straight between the client and the bucket. */
export function directTransferRoutes(files: FileSettings) {
  const base = { tag: 'Files', auth: 'tenant', scope: 'files:write' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/files/uploads',
      auditResource: 'files',
      summary: 'Start a direct upload: records a pending file and returns a presigned PUT URL for its bytes',
      body: DirectUploadCreate,
      response: DirectUploadSchema,
      handler: async ({ body, ctx }) => {
        const { file, upload } = await startDirectUpload(ctx, files, body);
        return { data: { ...serializeFile(file), upload: serializePresigned(upload) }, message: 'Upload URL issued' };
      },
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/files/:id/complete',
      summary: 'Complete a direct upload once its bytes are stored with the declared size and type (409 before, after or on a mismatch)',
      params: FileIdParams,
      response: StoredFileSchema,
      status: 200,
      handler: async ({ params, ctx }) => ({
        data: serializeFile(await completeDirectUpload(ctx, files, params.id)),
        message: 'File uploaded',
      }),
    }),
    defineRoute({
      ...base,
      scope: 'files:read',
      method: 'get',
      path: '/v1/files/:id/download-url',
      summary: "A short-lived presigned GET URL for a file's bytes, as an attachment (409 while pending)",
      params: FileIdParams,
      response: PresignedRequestSchema,
      errors: [409],
      handler: async ({ params, ctx }) => ({
        data: serializePresigned(await presignDownload(ctx, files, params.id)),
        message: 'Download URL issued',
      }),
    }),
  ];
}
