import { In } from 'typeorm';
import { EmailSuppression } from '../../db/entities';
import type { SuppressionReason } from '../../db/entities/email-suppression';
import { normalizeEmail } from '../normalize';
import { type ScopedData } from '../../db/scoped-data';

/**
 * Suppresses an address for the tenant and environment, whichever lead carries it. One row per
 * address; a bounce outranks an unsubscribe, so a later unsubscribe never weakens a bounce.
 */
export async function suppressAddress(data: ScopedData, address: string, reason: SuppressionReason): Promise<void> {
  await data.sql((q) => {
    const [tenant, environment] = q.scopeValues();
    return `INSERT INTO ${q.table(EmailSuppression)} (tenant_id, environment, address, reason)
      VALUES (${tenant}, ${environment}, ${q.value(normalizeEmail(address))}, ${q.value(reason)})
      ON CONFLICT (tenant_id, environment, address) DO UPDATE
        SET reason = CASE WHEN email_suppressions.reason = 'bounced' THEN 'bounced' ELSE excluded.reason END, updated_at = now()`;
  });
}

/** The suppressed addresses among `addresses` (given in any case), by normalised address. */
export async function suppressionsOf(data: ScopedData, addresses: string[]): Promise<Map<string, SuppressionReason>> {
  if (addresses.length === 0) return new Map();
  const rows = await data.repo(EmailSuppression).find({ where: { address: In([...new Set(addresses.map(normalizeEmail))]) } });
  return new Map(rows.map((r) => [r.address, r.reason]));
}

/**
 * Whether a suppression stops an email: a hard bounce stops every email, transactional included
 * (it would bounce again); an unsubscribe stops marketing only (receipts still go).
 */
export const stopsEmail = (reason: SuppressionReason, marketing: boolean): boolean => marketing || reason === 'bounced';

/** Why an address is suppressed, or null when it is not (stopsEmail says which email that stops). */
export async function suppressionOf(data: ScopedData, address: string): Promise<SuppressionReason | null> {
  return (await suppressionsOf(data, [address])).get(normalizeEmail(address)) ?? null;
}
