import type { DataSource } from 'typeorm';
import { StoredFile } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import { unscoped } from '../db/unscoped';
import { objectKey, type FileStorage } from '../lib/files/file-storage';
import { logger } from '../lib/logger';

/** Files removed per sweep run; the next run (hourly) takes the rest. */
const BATCH = 500;

/**
 * Deletes pending uploads older than `maxAgeMs` across all tenants: the stored object first (a
 * crash in between leaves a row the next run retries, never bytes without a row), then the row,
 * only if it is still pending (a completion racing the sweep wins).
 */
export async function expirePendingUploads(db: DataSource, storage: FileStorage, maxAgeMs: number): Promise<{ expired: number }> {
  // A sweep over every tenant: the one cross-tenant door.
  const rows = await unscoped(db).rows<{ id: string; tenant_id: string; environment: 'live' | 'sandbox' }>(
    `SELECT f.id::text AS id, f.tenant_id::text AS tenant_id, f.environment FROM files f
      WHERE f.status = 'pending' AND f.created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY f.id LIMIT ${BATCH}`,
    [maxAgeMs],
  );
  let expired = 0;
  for (const row of rows) {
    const scope = { tenantId: row.tenant_id, environment: row.environment };
    await storage.remove(objectKey(scope, row.id));
    if (await new ScopedData(db.manager, scope).repo(StoredFile).deleteWhere({ id: row.id, status: 'pending' })) expired++;
  }
  if (expired) logger.info({ expired }, 'expired pending uploads removed');
  return { expired };
}
