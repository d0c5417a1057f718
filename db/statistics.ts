import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { metadataOf, tableOf } from './sql';

/**
 * ANALYZE of the tables of `entities`: for a bulk writer whose rows outgrow the planner's
 * statistics faster than autovacuum samples them. A tenant the statistics have not seen yet is
 * estimated at about one row, every `(tenant_id, environment, ...)` index then costs the same, and
 * PostgreSQL may pick one that reads all of the tenant's rows for a lookup by another column.
 * A VACUUM an operator runs holds a lock ANALYZE waits for: after `lockTimeoutMs` this gives up
 * (an error) rather than stall the writer.
 */
export async function refreshStatistics(db: DataSource, entities: EntityTarget<ObjectLiteral>[], lockTimeoutMs = 2000): Promise<void> {
  await db.transaction(async (m) => {
    await m.query(`SET LOCAL lock_timeout = ${Math.round(lockTimeoutMs)}`);
    await m.query(`ANALYZE ${entities.map((e) => tableOf(metadataOf(db.manager, e))).join(', ')}`);
  });
}
