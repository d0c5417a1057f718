import { unscoped } from '../../db/unscoped';
import type { DomainContext } from '../context';
import { machineRulesOf, type MachineRules } from './machine-traffic';

/** The tenant's machine-traffic rules (both environments share them). */
export const getEngagementSettings = (ctx: DomainContext): Promise<MachineRules> => machineRulesOf(ctx.db, ctx.scope);

/** Merges the given rules into the stored ones; hits recorded from now on are classed by them. */
export async function updateEngagementSettings(ctx: DomainContext, changes: Partial<MachineRules>): Promise<MachineRules> {
  // The tenant row itself (not a scoped row): settings are tenant-wide, shared by both environments.
  await unscoped(ctx.db).rows(
    `UPDATE tenants SET engagement_settings = engagement_settings || $2::jsonb, updated_at = now() WHERE id = $1`,
    [ctx.scope.tenantId, JSON.stringify(changes)],
  );
  return getEngagementSettings(ctx);
}
