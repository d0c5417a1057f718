import { In } from 'typeorm';
import { EmailSuppression, Lead } from '../../db/entities';
import type { SuppressionReason } from '../../db/entities/email-suppression';
import { normalizeEmail } from '../normalize';
import { type ScopedData } from '../../db/scoped-data';
import type { UnitOfWork } from '../unit-of-work';

/**
 * The one lock order of the suppression list: a transaction that writes a lead's suppression state
 * locks those leads first, in ID order (as a merge locks its pair), and the list's rows after them.
 * Re-subscribe, unsubscribe, bounce and merge then queue behind one another instead of deadlocking,
 * as they did when the first two locked the list's row before the leads and a merge the reverse.
 * Locks the scope's leads with `address` (and the lead `leadId`, whatever its address) until `tx` ends.
 */
export async function lockLeadsOfAddress(tx: UnitOfWork, address: string, leadId: string | null = null): Promise<void> {
  await tx.sql(
    (q) => `SELECT id FROM ${q.table(Lead)} WHERE ${q.scope()}
      AND (email_normalized = ${q.value(normalizeEmail(address))} OR id = ${q.value(leadId)}::bigint) ORDER BY id FOR UPDATE`,
  );
}

/**
 * Suppresses addresses for the tenant and environment, whichever lead carries them. One row per
 * address; a bounce outranks an unsubscribe, so a later unsubscribe never weakens a bounce. Rows
 * are written in address order; a caller holds the addresses' leads first (lockLeadsOfAddress).
 */
export async function suppressAddresses(data: ScopedData, addresses: string[], reason: SuppressionReason): Promise<void> {
  const sorted = [...new Set(addresses.map(normalizeEmail))].sort();
  if (!sorted.length) return;
  await data.sql((q) => {
    const [tenant, environment] = q.scopeValues();
    return `INSERT INTO ${q.table(EmailSuppression)} (tenant_id, environment, address, reason)
      SELECT ${tenant}, ${environment}, a.address, ${q.value(reason)} FROM unnest(${q.value(sorted)}::varchar[]) WITH ORDINALITY a(address, n)
      ORDER BY a.n
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
