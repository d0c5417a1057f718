import { randomInt } from 'node:crypto';
import { Partner, PartnerReferralCode } from '../db/entities';
import { validationFailed } from '../lib/errors';
import { type ScopedData } from '../db/scoped-data';

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
export async function issueReferralCode(data: ScopedData, partnerId: string): Promise<PartnerReferralCode> {
  const codes = data.repo(PartnerReferralCode);
  let code = randomCode();
  while (await codes.findOne({ code })) code = randomCode();
  return codes.insert({ partnerId, code });
}

/** The approved partner a referral code belongs to; an unknown or inactive code is a field error. */
export async function resolveReferralCode(data: ScopedData, code: string, field: string): Promise<Partner> {
  const found = await data.repo(PartnerReferralCode).findOne({ code: code.toUpperCase() });
  const partner = found && (await data.repo(Partner).findById(found.partnerId));
  if (!partner) throw validationFailed([{ field, message: 'Referral code not found' }]);
  if (partner.status !== 'approved') throw validationFailed([{ field, message: 'Referral code is not active' }]);
  return partner;
}
