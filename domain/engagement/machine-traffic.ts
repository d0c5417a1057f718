import type { DataSource } from 'typeorm';
import { Tenant } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { unscoped } from '../../db/unscoped';

/**
 * Opens and clicks that a machine made: link scanners and security gateways that fetch every URL,
 * and hits within seconds of sending (prefetching before any person could have read the mail).
 * Such events are stored with `machine: true` and the reason, listed by GET /v1/analytics/events,
 * and never signalled into sequences, counted in stats or sent as webhooks.
 */
const MACHINE_AGENTS =
  /bot|crawler|spider|preview|scanner|barracuda|mimecast|proofpoint|symantec|trendmicro|forcepoint|python-requests|curl\/|wget|go-http-client|headlesschrome/i;
/** Apple Mail Privacy Protection fetches every image through a proxy whose user agent is exactly this. */
const APPLE_MAIL_PRIVACY_AGENT = 'Mozilla/5.0';

/** A tenant's classification rules (PATCH /v1/analytics/settings); the defaults are the service's own. */
export interface MachineRules {
  /** Apple's proxy opens every mail it delivers, read or not: count those opens as people, or as machine. */
  countAppleMailPrivacyOpens: boolean;
  /** A hit this soon after sending is a prefetch, not a person. */
  prefetchWindowSeconds: number;
}
const DEFAULT_MACHINE_RULES: MachineRules = { countAppleMailPrivacyOpens: true, prefetchWindowSeconds: 2 };

/** Why a hit is a machine's, in words (stored with the event), or null for a person. */
export function machineReason(
  hit: { type: 'email_open' | 'link_click'; method: string; userAgent: string | undefined; sentAt: Date | null; at: Date },
  rules: MachineRules,
): string | null {
  if (hit.method === 'HEAD') return 'HEAD request (link checkers, not people, send those)';
  const agent = hit.userAgent ? MACHINE_AGENTS.exec(hit.userAgent) : null;
  if (agent) return `user agent of a known scanner or client library ("${agent[0]}")`;
  if (hit.sentAt !== null && hit.at.getTime() - hit.sentAt.getTime() < rules.prefetchWindowSeconds * 1000)
    return `prefetch within ${rules.prefetchWindowSeconds} s of sending`;
  if (hit.type === 'email_open' && hit.userAgent === APPLE_MAIL_PRIVACY_AGENT && !rules.countAppleMailPrivacyOpens)
    return 'Apple Mail Privacy Protection proxy (this tenant does not count its opens)';
  return null;
}

/** The tenant's rules, with defaults for what it never set. */
export async function machineRulesOf(db: DataSource, scope: Pick<TenantScope, 'tenantId'>): Promise<MachineRules> {
  // The tenant row itself: its settings are shared by both environments.
  const tenant = await unscoped(db)
    .repo(Tenant)
    .findOne({ where: { id: scope.tenantId }, select: { id: true, engagementSettings: true } });
  return { ...DEFAULT_MACHINE_RULES, ...(tenant?.engagementSettings ?? {}) };
}
