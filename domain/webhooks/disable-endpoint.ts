import type { DataSource } from 'typeorm';
import { WebhookEndpoint } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { logger } from '../../lib/logger';
import { encodeId } from '../../lib/ids';

/** The service disables an endpoint (410, or failing for days) and records why, for the user to see. */
export async function disableEndpoint(db: DataSource, scope: TenantScope, endpointId: string, reason: string): Promise<void> {
  const endpoints = scoped(db.manager, WebhookEndpoint, scope);
  const endpoint = await endpoints.findById(endpointId);
  if (!endpoint || endpoint.status === 'disabled') return;
  Object.assign(endpoint, { status: 'disabled', disabledReason: reason, disabledAt: new Date() });
  await endpoints.save(endpoint);
  logger.warn(
    { webhookId: encodeId('webhook', endpointId), tenantId: encodeId('tenant', scope.tenantId), reason },
    'webhook endpoint disabled',
  );
}
