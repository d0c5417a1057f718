import { randomInt } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { Partner, PartnerReferralCode } from '../db/entities';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { validationFailed } from '../lib/errors';

/** No 0/O or 1/I/L: codes are read aloud and typed from print. URL-safe by construction. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const LENGTH = 10;

function randomCode(): string {
  return Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

/**
 * A fresh code, unique per tenant and environment. 31^10 codes make a clash very unlikely; the
 * check avoids it and the unique index is the backstop.
 */
export async function issueReferralCode(manager: EntityManager, scope: TenantScope, partnerId: string): Promise<PartnerReferralCode> {
  const codes = scoped(manager, PartnerReferralCode, scope);
  let code = randomCode();
  while (await codes.findOne({ code })) code = randomCode();
  return codes.insert({ partnerId, code });
}

/** The approved partner a referral code belongs to; an unknown or inactive code is a field error. */
export async function resolveReferralCode(manager: EntityManager, scope: TenantScope, code: string, field: string): Promise<Partner> {
  const found = await scoped(manager, PartnerReferralCode, scope).findOne({ code: code.toUpperCase() });
  const partner = found && (await scoped(manager, Partner, scope).findById(found.partnerId));
  if (!partner) throw validationFailed([{ field, message: 'Referral code not found' }]);
  if (partner.status !== 'approved') throw validationFailed([{ field, message: 'Referral code is not active' }]);
  return partner;
}
