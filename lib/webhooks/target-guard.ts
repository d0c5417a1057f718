import type { LookupAddress, LookupOneOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { config } from '../config';
import { withResolver, type DnsSettings } from '../dns';
import { isPrivateAddress } from './private-address';

const defaultDns = (): DnsSettings => ({ timeoutMs: config.WEBHOOK_DNS_TIMEOUT_MS });

/** Every address a host name resolves to (lib/dns.ts, off the thread pool). `localhost` is loopback (RFC 6761). */
async function resolveHost(host: string, dns: DnsSettings = defaultDns()): Promise<LookupAddress[]> {
  if (host === 'localhost' || host.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }];
  const [v4, v6] = await withResolver(host, dns, (resolver) => Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]));
  const addresses = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (addresses.length === 0) throw v4.status === 'rejected' ? v4.reason : new Error(`${host} has no addresses`);
  return addresses;
}

/** A webhook URL the service refuses to call. Never worth retrying. */
export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Shape rules that hold whatever the flag says: http(s) only, no credentials in the URL. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('Must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefusedError('Only http and https URLs are allowed');
  if (url.username || url.password) throw new TargetRefusedError('Credentials in the URL are not allowed');
  return url;
}

/**
 * Checks a URL at creation or update: every address its host resolves to must be public, unless
 * private targets are allowed (dev and tests). Delivery checks again, at connect time, with
 * `guardedLookup`, because DNS can change after creation.
 */
export async function assertPublicTarget(raw: string, allowPrivate: boolean, dns?: DnsSettings): Promise<void> {
  const url = parseTargetUrl(raw);
  if (allowPrivate) return;
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolveHost(host, dns)).map((a) => a.address);
    } catch {
      throw new TargetRefusedError('Host name could not be resolved');
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new TargetRefusedError('Must not point to a private, loopback, link-local or metadata address');
  }
}

/**
 * A `lookup` for http.request that refuses private addresses: the address checked is the address
 * connected to, so a DNS answer that changes between check and connect (rebinding) cannot slip by.
 */
export function guardedLookup(allowPrivate: boolean, dns?: DnsSettings): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname, dns).then(
      (list) => {
        const refused = !allowPrivate && list.some((a) => isPrivateAddress(a.address));
        if (refused) {
          return callback(new TargetRefusedError(`${hostname} resolves to a private, loopback, link-local or metadata address`), '', 0);
        }
        const family = (options as LookupOneOptions).family;
        const usable = family === 4 || family === 6 ? list.filter((a) => a.family === family) : list;
        if (usable.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/** IP-literal hosts never reach `lookup`, so delivery checks them here. */
export function assertLiteralHostAllowed(url: URL, allowPrivate: boolean): void {
  const host = hostOf(url);
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) {
    throw new TargetRefusedError(`${host} is a private, loopback, link-local or metadata address`);
  }
}
