import { lookup } from 'node:dns/promises';
import { lookup as lookupCallback, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-address';

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
export async function assertPublicTarget(raw: string, allowPrivate: boolean): Promise<void> {
  const url = parseTargetUrl(raw);
  if (allowPrivate) return;
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
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
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookupCallback(hostname, { ...(options as LookupOneOptions), all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = !allowPrivate && (list.length === 0 || list.some((a) => isPrivateAddress(a.address)));
      if (refused) {
        return callback(new TargetRefusedError(`${hostname} resolves to a private, loopback, link-local or metadata address`), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** IP-literal hosts never reach `lookup`, so delivery checks them here. */
export function assertLiteralHostAllowed(url: URL, allowPrivate: boolean): void {
  const host = hostOf(url);
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) {
    throw new TargetRefusedError(`${host} is a private, loopback, link-local or metadata address`);
  }
}
