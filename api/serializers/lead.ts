import type { Lead as LeadEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { Lead } from '../../contracts/lead';

export function serializeLead(l: LeadEntity): Lead {
  return {
    id: encodeId('lead', l.id),
    tenantId: encodeId('tenant', l.tenantId),
    email: l.email,
    firstName: l.firstName,
    lastName: l.lastName,
    phone: l.phone,
    source: l.source,
    status: l.status,
    score: l.score,
    assignedTo: l.assignedTo ? encodeId('user', l.assignedTo) : null,
    customFields: l.customFields,
    partnerId: l.partnerId ? encodeId('partner', l.partnerId) : null,
    unsubscribedAt: l.unsubscribedAt?.toISOString() ?? null,
    bouncedAt: l.bouncedAt?.toISOString() ?? null,
    createdAt: l.createdAt.toISOString(),
    updatedAt: l.updatedAt.toISOString(),
  };
}
