import type { DataSource } from 'typeorm';
import { WebhookEndpoint } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { generateSecret } from '../../domain/webhooks/endpoints';
import type { TestTenant } from './stack';

/**
 * Subscribes an active endpoint of each of the tenant's environments to every event, delivered to
 * `url`. An event no endpoint subscribes to is not written, so a test that reads a tenant's outbox
 * subscribes it first.
 */
export async function subscribeToEverything(db: DataSource, tenant: TestTenant, url: string): Promise<void> {
  for (const environment of ['live', 'sandbox'] as const)
    await scoped(db.manager, WebhookEndpoint, { tenantId: tenant.tenant.id, environment }).insert({
      url,
      events: ['*'],
      secret: generateSecret(),
      status: 'active',
    });
}

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
