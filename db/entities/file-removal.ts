import { Column, Entity, Index } from 'typeorm';
import { TenantScopedColumns } from './tenant-owned';

/**
 * Bytes of a deleted file still to be removed from storage (domain/file-removals.ts). Written in
 * the delete's transaction, so bytes outlive their file only until the removal succeeds: after the
 * commit at once, and otherwise by the hourly sweep. Only the sweep reads these rows, across
 * tenants and by `remove_after`: no index on the scope.
 */
@Entity({ name: 'file_removals' })
@Index('ix_file_removals_due', ['removeAfter'])
export class FileRemoval extends TenantScopedColumns {
  @Column({ name: 'file_id', type: 'bigint' })
  fileId: string;

  /** When the bytes may go for good: now, or when the last upload URL the file was given expires. */
  @Column({ name: 'remove_after', type: 'timestamptz' })
  removeAfter: Date;
}
