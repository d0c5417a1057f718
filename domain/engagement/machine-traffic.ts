/**
 * Opens and clicks that a machine made: link scanners and security gateways that fetch every URL,
 * and hits within seconds of sending (prefetching before any person could have read the mail).
 * Such events are stored with `machine: true` and never signalled into sequences.
 */
const MACHINE_AGENTS =
  /bot|crawler|spider|preview|scanner|barracuda|mimecast|proofpoint|symantec|trendmicro|forcepoint|python-requests|curl\/|wget|go-http-client|headlesschrome/i;
const MACHINE_WINDOW_MS = 2_000;

export function isMachineHit(hit: { method: string; userAgent: string | undefined; sentAt: Date | null; at: Date }): boolean {
  if (hit.method === 'HEAD') return true;
  if (hit.userAgent && MACHINE_AGENTS.test(hit.userAgent)) return true;
  return hit.sentAt !== null && hit.at.getTime() - hit.sentAt.getTime() < MACHINE_WINDOW_MS;
}
