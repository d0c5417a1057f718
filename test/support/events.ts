import type { DataSource } from 'typeorm';
import type { TestTenant } from './stack';

export interface OutboxRow {
  type: string;
  data: Record<string, unknown>;
}

/** The outbox rows a tenant's environment has, oldest first (optionally of some types only). */
export async function outboxOf(
  db: DataSource,
  tenant: TestTenant,
  environment: 'live' | 'sandbox',
  types?: string[],
): Promise<OutboxRow[]> {
  const rows: OutboxRow[] = await db.query(`SELECT type, data FROM events WHERE tenant_id = $1 AND environment = $2 ORDER BY id`, [
    tenant.tenant.id,
    environment,
  ]);
  return types ? rows.filter((r) => types.includes(r.type)) : rows;
}
