import type { EntityManager } from 'typeorm';
import { StatusDefinition } from '../db/entities';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { validationFailed } from '../lib/errors';
import { ensureSeeded } from './status-definitions';

/**
 * Lead statuses are the tenant's lead status definitions (seeded new/contacted/qualified/
 * unqualified): a given code must be one of them, and no code means the default one.
 */
export async function resolveLeadStatus(m: EntityManager, scope: TenantScope, code: string | undefined): Promise<string> {
  await ensureSeeded(m, scope, 'lead');
  const statuses = scoped(m, StatusDefinition, scope);
  const found = code
    ? await statuses.findOne({ entityType: 'lead', code })
    : await statuses.findOne({ entityType: 'lead', isDefault: true });
  if (!found) {
    throw validationFailed([
      { field: 'status', message: "Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead)" },
    ]);
  }
  return found.code;
}
