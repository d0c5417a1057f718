import { z } from 'zod';
import { FILE_ENTITY_TYPES, FILE_STATUSES } from '../db/entities/stored-file';
import { config } from '../lib/config';
import { ALLOWED_UPLOAD_TYPES, EMPTY_FILE } from '../lib/files/allowed-types';
import { safeFileName } from '../lib/files/safe-name';
import { decodeId } from '../lib/ids';
import { PaginationQuery, encodedId, idOfAnyType, typedIdPair } from './common';
import { anyOf } from './list-filters';

/** The owning record of a file: both fields or neither; the ID must be of the named type. */
function entityPair<T extends { entityType?: string; entityId?: string }>(v: T, ctx: z.RefinementCtx) {
  if ((v.entityType === undefined) !== (v.entityId === undefined)) {
    const missing = v.entityType === undefined ? 'entityType' : 'entityId';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'entityType and entityId go together' });
  } else if (v.entityType && decodeId(v.entityType as (typeof FILE_ENTITY_TYPES)[number], v.entityId) === null) {
    ctx.addIssue({ code: 'custom', path: ['entityId'], message: `Must be a valid ${v.entityType} ID` });
  }
}

export const FileUploadFields = z
  .object({ entityType: z.enum(FILE_ENTITY_TYPES).optional(), entityId: z.string().max(40).optional() })
  .strict()
  .superRefine(entityPair);
export type FileUploadFields = z.output<typeof FileUploadFields>;

/** Documents the multipart form (the file part itself is read from the stream). */
export const FileUploadForm = z
  .object({
    file: z.string().min(1).meta({ format: 'binary', description: 'The file (one, not empty); size and type limits apply' }),
    entityType: z.enum(FILE_ENTITY_TYPES).optional(),
    entityId: z.string().optional(),
  })
  .strict()
  .meta({ id: 'FileUploadForm', ...typedIdPair('entityType', 'entityId', FILE_ENTITY_TYPES, { optional: true }) });

export const StoredFileSchema = z
  .object({
    id: z.string(),
    filename: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    entityType: z.enum(FILE_ENTITY_TYPES).nullable(),
    entityId: z.string().nullable(),
    sha256: z.string().nullable().meta({ description: 'Null for direct uploads (their bytes never pass through the API)' }),
    status: z.enum(FILE_STATUSES).meta({ description: 'pending until a direct upload is completed; only ready files have content' }),
    createdAt: z.string(),
  })
  .meta({ id: 'File' });
export type StoredFileSchema = z.output<typeof StoredFileSchema>;

/** Each filter stands alone (an ID's prefix names its kind), so no rule ties the two parameters. */
export const FileListQuery = PaginationQuery.extend({
  entityType: anyOf(FILE_ENTITY_TYPES, 'Files attached to records of these kinds').optional(),
  entityId: idOfAnyType(FILE_ENTITY_TYPES)
    .optional()
    .meta({ description: 'Files attached to this record. With an entityType of another kind, no file matches' }),
});
export type FileListQuery = z.output<typeof FileListQuery>;

export const FileIdParams = z.object({ id: encodedId('file') });

/** Asks for a presigned upload URL: the same type allow-list as multipart uploads, a larger size limit. */
export const DirectUploadCreate = z
  .object({
    fileName: z.string().min(1).max(255).transform(safeFileName),
    contentType: z
      .string()
      .refine((t) => ALLOWED_UPLOAD_TYPES.has(t), { error: (i) => `Files of type ${String(i.input)} are not accepted` })
      .meta({ enum: [...ALLOWED_UPLOAD_TYPES] }),
    size: z
      .number()
      .int()
      .min(1, { error: (issue) => (issue.input === 0 ? EMPTY_FILE : undefined) })
      .max(config.FILE_DIRECT_UPLOAD_MAX_BYTES),
    entityType: z.enum(FILE_ENTITY_TYPES).optional(),
    entityId: z.string().max(40).optional(),
  })
  .strict()
  .superRefine(entityPair)
  .meta({ id: 'DirectUploadCreate', ...typedIdPair('entityType', 'entityId', FILE_ENTITY_TYPES, { optional: true }) });
export type DirectUploadCreate = z.output<typeof DirectUploadCreate>;

export const PresignedRequestSchema = z
  .object({
    url: z.string(),
    method: z.enum(['PUT', 'GET']),
    headers: z.record(z.string(), z.string()).meta({ description: 'Send exactly these headers: they are signed' }),
    expiresAt: z.string(),
  })
  .meta({ id: 'PresignedRequest' });
export type PresignedRequestSchema = z.output<typeof PresignedRequestSchema>;

export const DirectUploadSchema = StoredFileSchema.extend({ upload: PresignedRequestSchema }).meta({ id: 'DirectUpload' });
