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
  const statuses = scoped(m, StatusDefinition, scope);
  const find = () => (code ? statuses.findOne({ entityType: 'lead', code }) : statuses.findOne({ entityType: 'lead', isDefault: true }));
  // Seeding is checked only when the lookup misses: a tenant's first lead, or an unknown code.
  let found = await find();
  if (!found) {
    await ensureSeeded(m, scope, 'lead');
    found = await find();
  }
  if (!found) {
    throw validationFailed([
      { field: 'status', message: "Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead)" },
    ]);
  }
  return found.code;
}
