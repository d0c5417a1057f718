import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { metadataOf, tableOf } from './sql';

/**
 * ANALYZE of the tables of `entities`: for a bulk writer whose rows outgrow the planner's
 * statistics faster than autovacuum samples them. A tenant the statistics have not seen yet is
 * estimated at about one row, every `(tenant_id, environment, ...)` index then costs the same, and
 * PostgreSQL may pick one that reads all of the tenant's rows for a lookup by another column.
 */
export async function refreshStatistics(db: DataSource, entities: EntityTarget<ObjectLiteral>[]): Promise<void> {
  await db.query(`ANALYZE ${entities.map((e) => tableOf(metadataOf(db.manager, e))).join(', ')}`);
}
