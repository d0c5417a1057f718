import { z } from 'zod';
import { FILE_ENTITY_TYPES } from '../../db/entities/stored-file';
import { decodeId } from '../../lib/ids';
import { PaginationQuery, encodedId } from './common';

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
    file: z.string().meta({ format: 'binary', description: 'The file (one); size and type limits apply' }),
    entityType: z.enum(FILE_ENTITY_TYPES).optional(),
    entityId: z.string().optional(),
  })
  .meta({ id: 'FileUploadForm' });

export const StoredFileSchema = z
  .object({
    id: z.string(),
    filename: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    entityType: z.enum(FILE_ENTITY_TYPES).nullable(),
    entityId: z.string().nullable(),
    sha256: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'File' });
export type StoredFileSchema = z.output<typeof StoredFileSchema>;

export const FileListQuery = PaginationQuery.extend({
  entityType: z.enum(FILE_ENTITY_TYPES).optional(),
  entityId: z.string().max(40).optional(),
}).superRefine(entityPair);
export type FileListQuery = z.output<typeof FileListQuery>;

export const FileIdParams = z.object({ id: encodedId('file') });
