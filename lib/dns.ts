import { Resolver } from 'node:dns/promises';

/** Where host names are resolved; tests point `servers` at a DNS server of their own. */
export interface DnsSettings {
  /** `host:port` of DNS servers; default the system's (resolv.conf). */
  servers?: string[];
  /** Bound on one name's lookup, all tries included. */
  timeoutMs: number;
}

/** A name that does not exist, or has no records of the type asked for: an answer, not a failure. */
const NO_RECORDS = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * The TXT records at `name`, each record's strings joined (a DKIM key is longer than one 255-byte
 * string), or [] when there are none. A resolver that fails or does not answer in time throws.
 */
export async function lookupTxt(name: string, dns: DnsSettings): Promise<string[]> {
  const resolver = new Resolver({ timeout: Math.max(100, Math.floor(dns.timeoutMs / 2)), tries: 2 });
  if (dns.servers) resolver.setServers(dns.servers);
  try {
    return (await resolver.resolveTxt(name)).map((strings) => strings.join(''));
  } catch (err) {
    if (NO_RECORDS.has((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}
