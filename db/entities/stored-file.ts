import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const FILE_ENTITY_TYPES = ['lead', 'opportunity', 'partner', 'task'] as const;
export type FileEntityType = (typeof FILE_ENTITY_TYPES)[number];
/** `pending`: a direct upload was granted but not completed; only `ready` files have bytes to serve. */
export const FILE_STATUSES = ['pending', 'ready'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

/** An uploaded file's record; its bytes live in the configured storage under objectKey(scope, id). */
@Entity({ name: 'files' })
@Index('ix_files_scope_entity', ['tenantId', 'environment', 'entityType', 'entityId'])
export class StoredFile extends TenantOwned {
  @Column({ type: 'varchar', length: 255 })
  filename: string;

  @Column({ name: 'content_type', type: 'varchar', length: 100 })
  contentType: string;

  @Column({ type: 'integer' })
  size: number;

  @Column({ name: 'entity_type', type: 'varchar', length: 20, nullable: true })
  entityType: FileEntityType | null;

  @Column({ name: 'entity_id', type: 'bigint', nullable: true })
  entityId: string | null;

  /** Null for direct uploads: their bytes never pass through the API. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  sha256: string | null;

  @Column({ type: 'varchar', length: 10, default: 'ready' })
  status: FileStatus;

  @Column({ name: 'uploaded_by', type: 'bigint', nullable: true })
  uploadedBy: string | null;
}
