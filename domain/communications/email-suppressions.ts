import { In, type EntityManager } from 'typeorm';
import { EmailSuppression } from '../../db/entities';
import type { SuppressionReason } from '../../db/entities/email-suppression';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { normalizeEmail } from '../normalize';

/**
 * Suppresses an address for the tenant and environment, whichever lead carries it. One row per
 * address; a bounce outranks an unsubscribe, so a later unsubscribe never weakens a bounce.
 */
export async function suppressAddress(
  manager: EntityManager,
  scope: TenantScope,
  address: string,
  reason: SuppressionReason,
): Promise<void> {
  await manager.query(
    `INSERT INTO email_suppressions (tenant_id, environment, address, reason) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tenant_id, environment, address) DO UPDATE
       SET reason = CASE WHEN email_suppressions.reason = 'bounced' THEN 'bounced' ELSE excluded.reason END, updated_at = now()`,
    [scope.tenantId, scope.environment, normalizeEmail(address), reason],
  );
}

/** The suppressed addresses among `addresses` (given in any case), by normalised address. */
export async function suppressionsOf(
  manager: EntityManager,
  scope: TenantScope,
  addresses: string[],
): Promise<Map<string, SuppressionReason>> {
  if (addresses.length === 0) return new Map();
  const rows = await scoped(manager, EmailSuppression, scope).find({ where: { address: In([...new Set(addresses.map(normalizeEmail))]) } });
  return new Map(rows.map((r) => [r.address, r.reason]));
}

/** Why an address gets no marketing email, or null when it may. */
export async function suppressionOf(manager: EntityManager, scope: TenantScope, address: string): Promise<SuppressionReason | null> {
  return (await suppressionsOf(manager, scope, [address])).get(normalizeEmail(address)) ?? null;
}
