import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { DkimKeyCreate } from '../../contracts/sender';
import { DkimKey } from '../../db/entities';
import type { TenantScope } from '../../db/scoped-repository';
import { AppError, notFound, validationFailed } from '../../lib/errors';
import { SecretBox } from '../../lib/secret-box';
import type { DomainContext } from '../context';

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

/** One key per sending domain: registering another for the same domain is a 409 (delete the old one first). */
export async function registerDkimKey(ctx: DomainContext, input: DkimKeyCreate, secret: string): Promise<DkimKey> {
  const key = parseRsaPrivateKey(input.privateKey);
  const repo = ctx.data.repo(DkimKey);
  const existing = await repo.findOne({ domain: input.domain });
  if (existing) throw new AppError('conflict', `A DKIM key for ${input.domain} is registered already; delete it first to replace it`);
  const pem = key.export({ type: 'pkcs8', format: 'pem' }).toString();
  return repo.insert({
    domain: input.domain,
    selector: input.selector,
    keyType: 'rsa',
    publicKey: createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64'),
    privateKeySealed: dkimKeyBox(secret).seal(pem, dkimKeyContext(ctx.scope, input.domain)),
  });
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

/** Mail from the domain goes out unsigned afterwards. */
export async function deleteDkimKey(ctx: DomainContext, id: string): Promise<DkimKey> {
  const key = await getDkimKey(ctx, id);
  await ctx.data.repo(DkimKey).deleteById(id);
  return key;
}
