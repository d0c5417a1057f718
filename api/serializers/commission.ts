import type { Commission as CommissionEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Commission } from '../../contracts/commission';
import { encodeIdOrNull, isoOrNull } from './encode';

export function serializeCommission(c: CommissionEntity): Commission {
  return {
    id: encodeId('commission', c.id),
    partnerId: encodeId('partner', c.partnerId),
    amount: c.amount,
    currency: c.currency,
    status: c.status,
    rate: c.rate,
    leadId: encodeIdOrNull('lead', c.leadId),
    opportunityId: encodeIdOrNull('opportunity', c.opportunityId),
    note: c.note,
    paidAt: isoOrNull(c.paidAt),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}
