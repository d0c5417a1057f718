import type { DataSource } from 'typeorm';
import { expirePendingUploads } from '../../domain/expire-pending-uploads';
import { removeDueFileBytes } from '../../domain/file-removals';
import type { FileStorage } from '../../lib/files/file-storage';

export function createFileActivities(db: DataSource, storage: FileStorage) {
  return {
    expirePendingUploads: (input: { maxAgeMs: number }) => expirePendingUploads(db, storage, input.maxAgeMs),
    removeDueFileBytes: () => removeDueFileBytes(db, storage),
  };
}

export type FileActivities = ReturnType<typeof createFileActivities>;
