import type { DataSource } from 'typeorm';
import type { WorkflowNode } from '../../contracts/sequence-definition';
import { EmailSender, EmailTemplate, Lead } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { leadVariables } from '../../domain/communications/lead-variables';
import { inferEmailFormat } from '../../domain/communications/email-format';
import { suppressionOf } from '../../domain/communications/email-suppressions';
import { renderEmailBody, renderTemplate } from '../../domain/communications/render-template';
import { storeMessageOnce } from '../../domain/communications/store-message';
import { decodeId } from '../../lib/ids';
import type { EnrollmentRef } from '.';
import { ScopedData } from '../../db/scoped-data';

type EmailData = Extract<WorkflowNode, { type: 'email' }>['data'];
type SmsData = Extract<WorkflowNode, { type: 'sms' }>['data'];
export type CampaignMessageInput = EnrollmentRef & { nodeId: string } & (
    { channel: 'email'; data: EmailData } | { channel: 'sms'; data: SmsData }
  );

export interface PreparedMessage {
  messageId: string | null;
  status: 'queued' | 'sent' | 'failed' | 'skipped';
  reason?: string;
}

/**
 * Renders the node for the lead and stores the message under the key `enrollment/<id>/node/<nodeId>`:
 * whatever happens afterwards (retries, replays, a worker crash), the node has one message.
 */
export function prepareCampaignMessage(db: DataSource) {
  return async (input: CampaignMessageInput): Promise<PreparedMessage> => {
    const lead = await scoped(db.manager, Lead, input).findById(input.leadId);
    if (!lead) return { messageId: null, status: 'skipped', reason: 'lead_deleted' };
    const vars = leadVariables(lead);
    const common = {
      idempotencyKey: `enrollment/${input.enrollmentId}/node/${input.nodeId}`,
      leadId: lead.id,
      campaignId: input.campaignId,
      marketing: true,
    };
    if (input.channel === 'sms') {
      if (!lead.phone) return { messageId: null, status: 'skipped', reason: 'no_phone' };
      const body = renderTemplate(input.data.message, vars, { html: false });
      const message = await storeMessageOnce(new ScopedData(db.manager, input), { ...common, channel: 'sms', to: lead.phone, body });
      return { messageId: message.id, status: message.status };
    }
    // Checked again where the address is chosen: a suppression recorded since the eligibility check still holds.
    if (await suppressionOf(new ScopedData(db.manager, input), lead.email))
      return { messageId: null, status: 'skipped', reason: 'address_suppressed' };
    let subject = input.data.subjectLine;
    let source = input.data.body ?? '';
    // Saved definitions carry the format; a graph pinned before formats existed gets it from the author's body.
    let format = input.data.format ?? inferEmailFormat(source);
    if (input.data.templateId) {
      const templateKey = decodeId('emailTemplate', input.data.templateId);
      const template = templateKey ? await scoped(db.manager, EmailTemplate, input).findById(templateKey) : null;
      if (!template) return { messageId: null, status: 'skipped', reason: 'template_not_found' };
      source = template.body;
      format = template.format;
      subject = input.data.subjectLine || template.subject;
    }
    let senderId: string | null = null;
    if (input.data.senderId) {
      const senderKey = decodeId('sender', input.data.senderId);
      const sender = senderKey ? await scoped(db.manager, EmailSender, input).findById(senderKey) : null;
      if (!sender) return { messageId: null, status: 'skipped', reason: 'sender_not_found' };
      senderId = sender.id;
    }
    const message = await storeMessageOnce(new ScopedData(db.manager, input), {
      ...common,
      senderId,
      channel: 'email',
      to: lead.email,
      subject: renderTemplate(subject, vars, { html: false }),
      ...renderEmailBody(source, vars, format),
    });
    return { messageId: message.id, status: message.status };
  };
}
