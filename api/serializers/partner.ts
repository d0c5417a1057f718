import type { Partner as PartnerEntity, PartnerReferralCode } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Partner } from '../../contracts/partner';
import { encodeIdOrNull, isoOrNull } from './encode';

export function serializePartner(p: PartnerEntity): Partner {
  return {
    id: encodeId('partner', p.id),
    email: p.email,
    firstName: p.firstName,
    lastName: p.lastName,
    phone: p.phone,
    company: p.company,
    tier: p.tier,
    status: p.status,
    parentId: encodeIdOrNull('partner', p.parentId),
    approvedAt: isoOrNull(p.approvedAt),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

export const serializeReferralCode = (c: PartnerReferralCode) => ({
  code: c.code,
  partnerId: encodeId('partner', c.partnerId),
  createdAt: c.createdAt.toISOString(),
});
