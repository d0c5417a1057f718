import type { z } from 'zod';
import type { EmailTemplate, Message } from '../../db/entities';
import type { MessageWithEngagement } from '../../domain/communications/send-message';
import { encodeId } from '../../lib/ids';
import type { EmailTemplateRecord, MessageRecord } from '../../contracts/communication';

export function serializeMessage({ message: m, engagement: e }: MessageWithEngagement): z.output<typeof MessageRecord> {
  return {
    id: encodeId('message', m.id),
    channel: m.channel,
    to: m.to,
    subject: m.subject,
    body: m.body,
    format: m.format,
    status: m.status,
    sandbox: m.sandbox,
    leadId: m.leadId ? encodeId('lead', m.leadId) : null,
    campaignId: m.campaignId ? encodeId('campaign', m.campaignId) : null,
    opportunityId: m.opportunityId ? encodeId('opportunity', m.opportunityId) : null,
    providerMessageId: m.providerMessageId,
    error: m.error,
    sentAt: m.sentAt?.toISOString() ?? null,
    openedAt: e.openedAt?.toISOString() ?? null,
    clickedAt: e.clickedAt?.toISOString() ?? null,
    openCount: e.openCount,
    clickCount: e.clickCount,
    // SMS: Twilio's status callback sets it on the message; email: the provider's notice is an engagement event.
    deliveredAt: (m.deliveredAt ?? e.deliveredAt)?.toISOString() ?? null,
    bouncedAt: e.bouncedAt?.toISOString() ?? null,
    repliedAt: e.repliedAt?.toISOString() ?? null,
    statusCheckedAt: m.statusCheckedAt?.toISOString() ?? null,
    statusCheckError: m.statusCheckError ?? null,
    createdAt: m.createdAt.toISOString(),
  };
}

export const serializeSentMessage = (m: Message) => ({
  id: encodeId('message', m.id),
  to: m.to,
  status: m.status,
  createdAt: m.createdAt.toISOString(),
});

export function serializeEmailTemplate(t: EmailTemplate): z.output<typeof EmailTemplateRecord> {
  return {
    id: encodeId('emailTemplate', t.id),
    name: t.name,
    subject: t.subject,
    body: t.body,
    format: t.format,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
