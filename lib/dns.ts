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
 * Runs `lookup` on a resolver of its own, over DNS by c-ares (`Resolver`), not getaddrinfo: that
 * runs on the libuv thread pool, where argon2 hashing also runs, so a slow resolver would stall
 * logins and key checks, and it has no timeout of its own. c-ares's per-try timeout backs off, so
 * the whole lookup is also cut off at `dns.timeoutMs`.
 */
export async function withResolver<T>(name: string, dns: DnsSettings, lookup: (resolver: Resolver) => Promise<T>): Promise<T> {
  const resolver = new Resolver({ timeout: Math.max(100, Math.floor(dns.timeoutMs / 2)), tries: 2 });
  if (dns.servers) resolver.setServers(dns.servers);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      resolver.cancel();
      reject(new Error(`DNS lookup of ${name} timed out after ${dns.timeoutMs} ms`));
    }, dns.timeoutMs);
  });
  try {
    return await Promise.race([lookup(resolver), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The TXT records at `name`, each record's strings joined (a DKIM key is longer than one 255-byte
 * string), or [] when there are none. A resolver that fails or does not answer in time throws.
 */
export async function lookupTxt(name: string, dns: DnsSettings): Promise<string[]> {
  try {
    return (await withResolver(name, dns, (resolver) => resolver.resolveTxt(name))).map((strings) => strings.join(''));
  } catch (err) {
    if (NO_RECORDS.has((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}
