import { encodeId } from '../lib/ids';
import { buildEnvelope, type WebhookEnvelope } from './webhook-envelope';

/**
 * The webhook event catalog: one payload builder per event type. Emitters call these
 * builders and the catalog endpoint builds its example payloads with the same functions, so the
 * documented shape and the delivered shape cannot drift apart. Builders take database keys and
 * encode them: payloads only ever carry public IDs.
 */
type Id = string | number;

/** An engagement with a message: the message, its lead and campaign (when it came from one), and when it happened. */
interface MessageEngagement {
  messageId: Id;
  leadId: Id | null;
  campaignId: Id | null;
  occurredAt: Date;
}
const messageEngagement = (e: MessageEngagement) => ({
  messageId: encodeId('message', e.messageId),
  leadId: e.leadId === null ? null : encodeId('lead', e.leadId),
  campaignId: e.campaignId === null ? null : encodeId('campaign', e.campaignId),
  occurredAt: e.occurredAt.toISOString(),
});
/** A message by its recipient, lead and campaign: what every sent or failed message event names. */
interface MessageRef {
  id: Id;
  to: string;
  leadId: Id | null;
  campaignId: Id | null;
}
const messageRef = (m: MessageRef) => ({
  messageId: encodeId('message', m.id),
  to: m.to,
  leadId: m.leadId === null ? null : encodeId('lead', m.leadId),
  campaignId: m.campaignId === null ? null : encodeId('campaign', m.campaignId),
});
const sentMessage = (m: MessageRef & { sentAt: Date; sandbox: boolean }) => ({
  ...messageRef(m),
  sentAt: m.sentAt.toISOString(),
  sandbox: m.sandbox,
});
/** A message that will never reach its recipient: refused at sending, failing when its retries ran out, or reported undeliverable. */
const failedMessage = (m: MessageRef & { reason: string; failedAt: Date }) => ({
  ...messageRef(m),
  reason: m.reason,
  failedAt: m.failedAt.toISOString(),
});
interface EnrollmentRef {
  id: Id;
  campaignId: Id;
  leadId: Id;
}
const enrollment = (e: EnrollmentRef) => ({
  enrollmentId: encodeId('enrollment', e.id),
  campaignId: encodeId('campaign', e.campaignId),
  leadId: encodeId('lead', e.leadId),
});

interface LeadImportOutcome {
  id: Id;
  status: 'completed' | 'failed';
  rowsRead: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  completedAt: Date;
}

export const eventPayloads = {
  'lead.created': (l: { id: Id; email: string; source: string }) => ({ leadId: encodeId('lead', l.id), email: l.email, source: l.source }),
  'lead.updated': (l: { id: Id; changes: Record<string, unknown> }) => ({ leadId: encodeId('lead', l.id), changes: l.changes }),
  'lead.deleted': (l: { id: Id }) => ({ leadId: encodeId('lead', l.id) }),
  'lead.import.completed': (i: LeadImportOutcome) => ({
    importId: encodeId('leadImport', i.id),
    status: i.status,
    rowsRead: i.rowsRead,
    created: i.created,
    updated: i.updated,
    skipped: i.skipped,
    failed: i.failed,
    completedAt: i.completedAt.toISOString(),
  }),
  'opportunity.created': (o: { id: Id; value: number; stage: string }) => ({
    opportunityId: encodeId('opportunity', o.id),
    value: o.value,
    stage: o.stage,
  }),
  'opportunity.stage_changed': (o: { id: Id; from: string; to: string }) => ({
    opportunityId: encodeId('opportunity', o.id),
    from: o.from,
    to: o.to,
  }),
  'opportunity.won': (o: { id: Id; value: number }) => ({ opportunityId: encodeId('opportunity', o.id), value: o.value }),
  'opportunity.lost': (o: { id: Id; reason: string | null }) => ({ opportunityId: encodeId('opportunity', o.id), reason: o.reason }),
  'partner.registered': (p: { id: Id; company: string | null }) => ({ partnerId: encodeId('partner', p.id), company: p.company }),
  'partner.approved': (p: { id: Id }) => ({ partnerId: encodeId('partner', p.id) }),
  'commission.earned': (c: { id: Id; amount: number; partnerId: Id }) => ({
    commissionId: encodeId('commission', c.id),
    amount: c.amount,
    partnerId: encodeId('partner', c.partnerId),
  }),
  'commission.paid': (c: { id: Id; amount: number }) => ({ commissionId: encodeId('commission', c.id), amount: c.amount }),
  'commission.reversed': (c: { id: Id; amount: number; partnerId: Id; opportunityId: Id | null; reason: string }) => ({
    commissionId: encodeId('commission', c.id),
    amount: c.amount,
    partnerId: encodeId('partner', c.partnerId),
    opportunityId: c.opportunityId === null ? null : encodeId('opportunity', c.opportunityId),
    reason: c.reason,
  }),
  'task.created': (t: { id: Id; title: string; assigneeId: Id | null }) => ({
    taskId: encodeId('task', t.id),
    title: t.title,
    assigneeId: t.assigneeId === null ? null : encodeId('user', t.assigneeId),
  }),
  'task.completed': (t: { id: Id }) => ({ taskId: encodeId('task', t.id) }),
  'form.submitted': (f: { id: Id; leadId: Id | null; fields: Record<string, unknown> }) => ({
    formId: encodeId('form', f.id),
    leadId: f.leadId === null ? null : encodeId('lead', f.leadId),
    fields: f.fields,
  }),
  'email.sent': sentMessage,
  'email.delivered': messageEngagement,
  'email.opened': messageEngagement,
  'email.clicked': (e: MessageEngagement & { url: string | null }) => ({ ...messageEngagement(e), url: e.url }),
  'email.bounced': (e: MessageEngagement & { reason: string | null }) => ({ ...messageEngagement(e), reason: e.reason }),
  'email.unsubscribed': messageEngagement,
  'email.replied': messageEngagement,
  'email.failed': failedMessage,
  'sms.sent': sentMessage,
  'sms.delivered': messageEngagement,
  'sms.failed': failedMessage,
  'campaign.enrollment.started': enrollment,
  'campaign.enrollment.completed': (e: EnrollmentRef & { status: string; exitReason: string | null }) => ({
    ...enrollment(e),
    status: e.status,
    exitReason: e.exitReason,
  }),
};

export type CatalogEventType = keyof typeof eventPayloads;
export const CATALOG_EVENT_TYPES = Object.keys(eventPayloads) as CatalogEventType[];

/**
 * `lead.*`: every event of one resource, the first word of its name, including events the catalog
 * gains later (docs/decisions.md, "Webhooks").
 */
export const eventFamily = (type: string) => `${type.slice(0, type.indexOf('.'))}.*`;
export const EVENT_FAMILIES = [...new Set(CATALOG_EVENT_TYPES.map(eventFamily))];

/** The subscriptions that receive an event: every event (`*`), its family and its own name. */
export const subscriptionsTo = (type: string) => ['*', eventFamily(type), type];

/** Sent by POST /v1/integrations/webhooks/:id/test to that endpoint only; not subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type EventType = CatalogEventType | typeof TEST_EVENT_TYPE;

const EVENT_GROUPS = ['leads', 'opportunities', 'partners', 'commissions', 'tasks', 'forms', 'email', 'sms', 'campaigns'] as const;
export type EventGroup = (typeof EVENT_GROUPS)[number];

interface CatalogDoc {
  group: EventGroup;
  description: string;
  example: () => Record<string, unknown>;
}

const EXAMPLE_AT = new Date('2026-01-15T09:29:58.000Z');
const EXAMPLE_MESSAGE = { id: 8001, leadId: 1001, campaignId: 9101 };
const EXAMPLE_ENGAGEMENT = { messageId: 8001, leadId: 1001, campaignId: 9101, occurredAt: EXAMPLE_AT };
const EXAMPLE_ENROLLMENT = { id: 9201, campaignId: 9101, leadId: 1001 };

/** Example inputs are made-up records; the builders turn them into exactly what receivers get. */
const docs: { [T in CatalogEventType]: CatalogDoc } = {
  'lead.created': {
    group: 'leads',
    description: 'New lead created',
    example: () => eventPayloads['lead.created']({ id: 1001, email: 'ada@example.com', source: 'web' }),
  },
  'lead.updated': {
    group: 'leads',
    description:
      'Lead fields modified; changes holds the new values of the changed fields only (customFields: the changed keys, a removed one as null)',
    example: () => eventPayloads['lead.updated']({ id: 1001, changes: { status: 'qualified', score: 80 } }),
  },
  'lead.deleted': { group: 'leads', description: 'Lead removed', example: () => eventPayloads['lead.deleted']({ id: 1001 }) },
  'lead.import.completed': {
    group: 'leads',
    description:
      'A bulk import (POST /v1/leads/imports) finished: one event per import with its counts (per-lead lead.created events only when it asked for them)',
    example: () =>
      eventPayloads['lead.import.completed']({
        id: 9301,
        status: 'completed',
        rowsRead: 20000,
        created: 19850,
        updated: 0,
        skipped: 120,
        failed: 30,
        completedAt: EXAMPLE_AT,
      }),
  },
  'opportunity.created': {
    group: 'opportunities',
    description: 'New opportunity opened',
    example: () => eventPayloads['opportunity.created']({ id: 2001, value: 25000, stage: 'qualified' }),
  },
  'opportunity.stage_changed': {
    group: 'opportunities',
    description: 'Opportunity moved stage',
    example: () => eventPayloads['opportunity.stage_changed']({ id: 2001, from: 'qualified', to: 'proposal' }),
  },
  'opportunity.won': {
    group: 'opportunities',
    description: 'Deal won',
    example: () => eventPayloads['opportunity.won']({ id: 2001, value: 25000 }),
  },
  'opportunity.lost': {
    group: 'opportunities',
    description: 'Deal lost',
    example: () => eventPayloads['opportunity.lost']({ id: 2001, reason: 'Chose a competitor' }),
  },
  'partner.registered': {
    group: 'partners',
    description: 'New partner registered',
    example: () => eventPayloads['partner.registered']({ id: 3001, company: 'Analytical Engines Ltd' }),
  },
  'partner.approved': {
    group: 'partners',
    description: 'Partner approved',
    example: () => eventPayloads['partner.approved']({ id: 3001 }),
  },
  'commission.earned': {
    group: 'commissions',
    description: 'Commission recorded',
    example: () => eventPayloads['commission.earned']({ id: 4001, amount: 1250, partnerId: 3001 }),
  },
  'commission.paid': {
    group: 'commissions',
    description: 'Commission paid out',
    example: () => eventPayloads['commission.paid']({ id: 4001, amount: 1250 }),
  },
  'commission.reversed': {
    group: 'commissions',
    description:
      'Earned commission reversed: its won deal was reopened, lost, deleted or changed value (deal_reopened, deal_lost, deal_deleted, deal_value_changed)',
    example: () =>
      eventPayloads['commission.reversed']({ id: 4001, amount: 1250, partnerId: 3001, opportunityId: 5001, reason: 'deal_reopened' }),
  },
  'task.created': {
    group: 'tasks',
    description: 'New task assigned',
    example: () => eventPayloads['task.created']({ id: 5001, title: 'Call Ada about the proposal', assigneeId: 6001 }),
  },
  'task.completed': { group: 'tasks', description: 'Task complete', example: () => eventPayloads['task.completed']({ id: 5001 }) },
  'form.submitted': {
    group: 'forms',
    description: 'Form submission received',
    example: () =>
      eventPayloads['form.submitted']({ id: 7001, leadId: 1001, fields: { email: 'ada@example.com', company: 'Babbage & Co' } }),
  },
  'email.sent': {
    group: 'email',
    description: 'Email handed to the mail server (sandbox: recorded by the capture transport, never delivered)',
    example: () => eventPayloads['email.sent']({ ...EXAMPLE_MESSAGE, to: 'ada@example.com', sentAt: EXAMPLE_AT, sandbox: false }),
  },
  'email.delivered': {
    group: 'email',
    description: "The recipient's mail server accepted the email, as reported to POST /v1/communications/inbound/delivered",
    example: () => eventPayloads['email.delivered'](EXAMPLE_ENGAGEMENT),
  },
  'email.opened': {
    group: 'email',
    description: 'Email opened by a person (opens classed as machine traffic, such as scanners and prefetches, are not sent)',
    example: () => eventPayloads['email.opened'](EXAMPLE_ENGAGEMENT),
  },
  'email.clicked': {
    group: 'email',
    description: 'Tracked link clicked by a person (machine-classed clicks are not sent); url is the link target',
    example: () => eventPayloads['email.clicked']({ ...EXAMPLE_ENGAGEMENT, url: 'https://example.com/pricing' }),
  },
  'email.bounced': {
    group: 'email',
    description: 'Email bounced; the address is suppressed and the lead marked bounced',
    example: () => eventPayloads['email.bounced']({ ...EXAMPLE_ENGAGEMENT, reason: '550 5.1.1 mailbox unavailable' }),
  },
  'email.unsubscribed': {
    group: 'email',
    description: "The recipient unsubscribed through the email's link or one-click List-Unsubscribe; the address is suppressed",
    example: () => eventPayloads['email.unsubscribed'](EXAMPLE_ENGAGEMENT),
  },
  'email.replied': {
    group: 'email',
    description:
      'A reply to the email was recorded (POST /v1/communications/inbound/reply, or an email_reply event naming the message at POST /v1/analytics/events); one event per reply recorded',
    example: () => eventPayloads['email.replied'](EXAMPLE_ENGAGEMENT),
  },
  'email.failed': {
    group: 'email',
    description:
      'The email will never be sent: refused at sending (sending domain not verified, the mail server refused the message, the address was suppressed while it waited) or still failing when its retries ran out; reason says why. Sent once per message. A recipient the mail server refuses for good is a hard bounce and sends email.bounced instead',
    example: () =>
      eventPayloads['email.failed']({
        ...EXAMPLE_MESSAGE,
        to: 'ada@example.com',
        reason: 'SMTP refused the message: 554 5.7.1 Message rejected as spam',
        failedAt: EXAMPLE_AT,
      }),
  },
  'sms.sent': {
    group: 'sms',
    description: 'SMS handed to the SMS provider (sandbox: recorded by the capture transport, never delivered)',
    example: () => eventPayloads['sms.sent']({ ...EXAMPLE_MESSAGE, to: '+442079460018', sentAt: EXAMPLE_AT, sandbox: false }),
  },
  'sms.delivered': {
    group: 'sms',
    description:
      "The recipient's carrier confirmed delivery (Twilio's delivered status, sent to its status callback); sent once per message",
    example: () => eventPayloads['sms.delivered'](EXAMPLE_ENGAGEMENT),
  },
  'sms.failed': {
    group: 'sms',
    description:
      "The SMS will not reach its recipient: the SMS provider refused it (an invalid or unreachable number, an unverified sender), was still failing when its retries ran out, or accepted it and later reported it failed or undelivered (Twilio's status callback: the carrier refused it, the handset was unreachable); reason says why. Sent once per message, and never after sms.delivered",
    example: () =>
      eventPayloads['sms.failed']({
        ...EXAMPLE_MESSAGE,
        to: '+442079460018',
        reason: "Twilio refused the message: The 'To' number +442079460018 is not a valid phone number.",
        failedAt: EXAMPLE_AT,
      }),
  },
  'campaign.enrollment.started': {
    group: 'campaigns',
    description: 'Lead enrolled into a campaign; its sequence starts',
    example: () => eventPayloads['campaign.enrollment.started'](EXAMPLE_ENROLLMENT),
  },
  'campaign.enrollment.completed': {
    group: 'campaigns',
    description:
      "A lead's enrollment ended. status: completed (reached an end), exited (the lead left), unenrolled or stopped (campaign completed); exitReason says why (null when it reached an end; unsubscribed, bounced, converted, lead_deleted, unenrolled, campaign_completed)",
    example: () => eventPayloads['campaign.enrollment.completed']({ ...EXAMPLE_ENROLLMENT, status: 'exited', exitReason: 'unsubscribed' }),
  },
};

export interface CatalogEntry {
  event: CatalogEventType;
  description: string;
  /** The whole body a receiver gets: the delivery envelope around the builder's data. */
  examplePayload: WebhookEnvelope;
}

const EXAMPLE_CREATED_AT = new Date('2026-01-15T09:30:00.000Z');

/** GET /v1/integrations/webhooks/catalog: every event, keyed by group. */
export function eventCatalog(): Record<EventGroup, CatalogEntry[]> {
  const out = Object.fromEntries(EVENT_GROUPS.map((g) => [g, [] as CatalogEntry[]])) as Record<EventGroup, CatalogEntry[]>;
  for (const event of CATALOG_EVENT_TYPES) {
    const doc = docs[event];
    out[doc.group].push({
      event,
      description: doc.description,
      examplePayload: buildEnvelope({ id: 9001, type: event, createdAt: EXAMPLE_CREATED_AT, data: doc.example() }),
    });
  }
  return out;
}
