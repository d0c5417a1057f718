import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const FILE_ENTITY_TYPES = ['lead', 'opportunity', 'partner', 'task'] as const;
export type FileEntityType = (typeof FILE_ENTITY_TYPES)[number];

/** An uploaded file's record; its bytes live on disk under FILES_DIR, keyed by scope and id. */
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

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ name: 'uploaded_by', type: 'bigint', nullable: true })
  uploadedBy: string | null;
}
