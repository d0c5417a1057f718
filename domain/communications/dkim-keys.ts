import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { DkimKeyCreate } from '../../contracts/sender';
import { DkimKey } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { SecretBox } from '../../lib/secret-box';
import type { DomainContext } from '../context';
import { In, IsNull, Not } from 'typeorm';
import { lookupTxt, type DnsSettings } from '../../lib/dns';
import type { ScopedData } from '../../db/scoped-data';

/** Keys below this are refused by receivers (RFC 8301); 2048 is what providers ask for. */
const MIN_RSA_BITS = 1024;

/** The sealed private key opens only for the tenant, environment and domain it was registered for. */
export const dkimKeyContext = (scope: TenantScope, domain: string) => `dkim:${scope.tenantId}:${scope.environment}:${domain}`;
export const dkimKeyBox = (secret: string) => new SecretBox(secret, 'dkim-private-keys');

function parseRsaPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw validationFailed([
      {
        field: 'privateKey',
        message: 'Must be a PEM private key (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----), unencrypted',
      },
    ]);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.asymmetricKeyType !== 'rsa' || bits < MIN_RSA_BITS) {
    throw validationFailed([
      {
        field: 'privateKey',
        message: `Must be an RSA key of ${MIN_RSA_BITS} bits or more (2048 recommended), e.g. from openssl genrsa 2048`,
      },
    ]);
  }
  return key;
}

/**
 * A key per selector of a sending domain: another selector for a domain that has a key is how a
 * key is rotated (the old one keeps signing until the new one is verified); the same selector
 * again is a 409.
 */
export async function registerDkimKey(ctx: DomainContext, input: DkimKeyCreate, secret: string): Promise<DkimKey> {
  const key = parseRsaPrivateKey(input.privateKey);
  const repo = ctx.data.repo(DkimKey);
  const existing = await repo.findOne({ domain: input.domain, selector: input.selector });
  if (existing) {
    throw new AppError(
      'conflict',
      `A DKIM key for ${input.domain} at selector ${input.selector} is registered already; to rotate it, register the new key at another selector`,
    );
  }
  const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  return repo.insert({
    domain: input.domain,
    selector: input.selector,
    keyType: 'rsa',
    publicKey: createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKeySealed: dkimKeyBox(secret).seal(pem, dkimKeyContext(ctx.scope, input.domain)),
    verifiedAt: null,
  });
}

/** Where a key's public part is published, and the TXT record it is published as. */
export const dkimRecordName = (k: DkimKey) => `${k.selector}._domainkey.${k.domain}`;
export const dkimRecordValue = (k: DkimKey) => `v=DKIM1; k=${k.keyType}; p=${k.publicKey}`;

/** The `p=` of a DKIM TXT record (RFC 6376 3.6.1: tag=value pairs; whitespace inside the value is folding). */
function publishedKey(record: string): string | null {
  for (const tag of record.split(';')) {
    const eq = tag.indexOf('=');
    if (eq > 0 && tag.slice(0, eq).trim() === 'p') return tag.slice(eq + 1).replace(/\s+/g, '');
  }
  return null;
}

/**
 * Proves the tenant controls the key's domain: its public key must be published at
 * `<selector>._domainkey.<domain>`, which only the domain's owner can do. Live mail from a sender at
 * a domain goes out only once a key for it is verified, so no tenant sends as another's domain
 * (or signs for it). A key found again keeps its first verification time.
 */
export async function verifyDkimKey(ctx: DomainContext, id: string, dns: DnsSettings): Promise<DkimKey> {
  const key = await getDkimKey(ctx, id);
  const name = dkimRecordName(key);
  let records: string[];
  try {
    records = await lookupTxt(name, dns);
  } catch (err) {
    throw new AppError('service_unavailable', `The DNS lookup of ${name} failed (${(err as Error).message}); retry shortly`);
  }
  const keys = records.map(publishedKey).filter((p): p is string => p !== null);
  if (!keys.includes(key.publicKey)) {
    const found = keys.length ? 'holds another public key' : 'has no DKIM record';
    throw validationFailed([
      {
        field: 'dnsRecordValue',
        message: `${name} ${found}: publish the TXT record "${dkimRecordValue(key)}" there, then verify again (DNS changes can take minutes to be seen)`,
      },
    ]);
  }
  if (!key.verifiedAt) {
    key.verifiedAt = new Date();
    await ctx.data.repo(DkimKey).updateWhere({ id: key.id }, { verifiedAt: key.verifiedAt });
  }
  return key;
}

/** The domains among `domains` that have a verified key in the scope: live mail may come from them, signed. */
export async function verifiedDomains(data: ScopedData, domains: string[]): Promise<Set<string>> {
  if (!domains.length) return new Set();
  const keys = await data.repo(DkimKey).find({ where: { domain: In(domains), verifiedAt: Not(IsNull()) } });
  return new Set(keys.map((k) => k.domain));
}

export async function listDkimKeys(ctx: DomainContext, f: { page: number; limit: number }) {
  const [rows, total] = await ctx.data.repo(DkimKey).select('k').orderBy('k.id', 'DESC').page(f.page, f.limit);
  return { rows, total };
}

export async function getDkimKey(ctx: DomainContext, id: string): Promise<DkimKey> {
  const key = await ctx.data.repo(DkimKey).findById(id);
  if (!key) throw notFound('DKIM key');
  return key;
}

/**
 * The key that signs mail from `domain`: the one verified last, so a rotated-in key takes over as
 * soon as it is verified, before the old one is deleted.
 */
export async function signingDkimKey(data: ScopedData, domain: string): Promise<DkimKey | null> {
  const [key] = await data
    .repo(DkimKey)
    .find({ where: { domain, verifiedAt: Not(IsNull()) }, order: { verifiedAt: 'DESC', id: 'DESC' }, take: 1 });
  return key ?? null;
}

/** Another verified key of the domain signs from then on; with none, live mail from the domain is refused. */
export async function deleteDkimKey(ctx: DomainContext, id: string): Promise<DkimKey> {
  const key = await getDkimKey(ctx, id);
  await ctx.data.repo(DkimKey).deleteById(id);
  return key;
}
