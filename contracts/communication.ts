import { z } from 'zod';
import { EMAIL_FORMATS, MESSAGE_CHANNELS, MESSAGE_STATUSES } from '../db/entities/message';
import { emailField, encodedId, isoDateTime, nonBlank, PaginationQuery, references } from './common';
import { anyOf } from './list-filters';

/** Explicit, so a lead's data is never parsed as markup: substituted values are escaped into HTML bodies. */
const emailFormat = z.enum(EMAIL_FORMATS).meta({
  description:
    'text: sent as written plus an HTML version with every character escaped and the URLs written in the body made clickable; html: sent as written. Placeholder values are always HTML-escaped in HTML. Default: html when the body (as written, before placeholders are filled) holds a tag.',
});

const EMAIL_CATEGORIES = ['marketing', 'transactional'] as const;

/** A send without a template names its subject; with one, the template's is used unless one is given. */
export const SUBJECT_REQUIRED = 'Required; give a subject, or a templateId (its template has one)';

const templateData = z.record(z.string().max(100), z.union([z.string().max(5000), z.number(), z.boolean(), z.null()]));

export const SendEmail = z
  .object({
    to: emailField,
    subject: nonBlank(300).optional().meta({
      description:
        "Required without templateId. With one, the template's subject is used (its placeholders filled like the body's) unless this is given",
    }),
    // Not trimmed: the author's leading whitespace may be preformatted text.
    body: z
      .string()
      .max(100_000)
      .refine((b) => b.trim() !== '', 'Must not be blank')
      .optional()
      .meta({ pattern: '[^\\s\\uFEFF]' }),
    format: emailFormat.optional().meta({ description: "The body's format (with body only; a template has its own)" }),
    templateId: encodedId('emailTemplate').optional(),
    templateData: templateData.optional(),
    leadId: encodedId('lead').optional(),
    opportunityId: encodedId('opportunity').optional(),
    senderId: encodedId('sender')
      .optional()
      .meta({ description: 'The sender identity (from name, from address, reply-to); absent: EMAIL_FROM' }),
    category: z.enum(EMAIL_CATEGORIES).optional().meta({
      description:
        'marketing (default when leadId is given): refused with 422 for an address on the suppression list, and sent with an unsubscribe link and List-Unsubscribe; transactional (default without leadId): receipts, password resets and the like, sent to an address that unsubscribed but refused with 422 for one that hard-bounced',
    }),
  })
  .strict()
  .refine((b) => (b.body === undefined) !== (b.templateId === undefined), { message: 'Give either body or templateId', path: ['body'] })
  .refine((b) => b.format === undefined || b.body !== undefined, {
    message: 'format goes with body: a template has its own',
    path: ['format'],
  })
  .refine((b) => b.subject !== undefined || b.templateId !== undefined, {
    message: SUBJECT_REQUIRED,
    path: ['subject'],
  })
  .meta({
    id: 'SendEmail',
    oneOf: [{ required: ['body'] }, { required: ['templateId'] }],
    anyOf: [{ not: { required: ['format'] } }, { required: ['body'] }],
    allOf: [{ anyOf: [{ required: ['subject'] }, { required: ['templateId'] }] }],
  });
export type SendEmail = z.output<typeof SendEmail>;

export const SendSms = z
  .object({
    to: z
      .string()
      .trim()
      .regex(/^\+[1-9][0-9]{6,14}$/, 'Must be an E.164 phone number (+ and digits)'),
    body: nonBlank(1600),
    leadId: encodedId('lead').optional(),
  })
  .strict()
  .meta({ id: 'SendSms' });
export type SendSms = z.output<typeof SendSms>;

/** What a send answers, the fields integrations were promised: id, to, status, createdAt; GET /v1/communications/messages/:id has the rest. */
export const SentMessage = z
  .object({ id: z.string(), to: z.string(), status: z.enum(MESSAGE_STATUSES), createdAt: z.string() })
  .meta({ id: 'SentMessage' });

export const MessageRecord = z
  .object({
    id: z.string(),
    channel: z.enum(MESSAGE_CHANNELS),
    to: z.string(),
    subject: z.string().nullable(),
    body: z.string(),
    format: z.enum(EMAIL_FORMATS).meta({ description: 'How the body was sent (SMS: text)' }),
    status: z.enum(MESSAGE_STATUSES),
    sandbox: z.boolean(),
    leadId: z.string().nullable(),
    campaignId: z.string().nullable(),
    opportunityId: z.string().nullable(),
    providerMessageId: z.string().nullable(),
    error: z.string().nullable(),
    sentAt: z.string().nullable(),
    openedAt: z
      .string()
      .nullable()
      .meta({ description: 'First open by a person (machine traffic is not counted; see GET /v1/analytics/events?machine=true)' }),
    clickedAt: z.string().nullable().meta({ description: 'First click by a person' }),
    openCount: z.number().int().meta({ description: 'Opens by people' }),
    clickCount: z.number().int().meta({ description: 'Clicks by people' }),
    deliveredAt: z.string().nullable().meta({
      description:
        "When the provider reported it delivered: an email's notice (POST /v1/communications/inbound/delivered), an SMS's delivered status from Twilio",
    }),
    bouncedAt: z
      .string()
      .nullable()
      .meta({ description: 'When the provider reported it bounced (POST /v1/communications/inbound/bounce)' }),
    repliedAt: z.string().nullable().meta({ description: 'First reply the provider reported (POST /v1/communications/inbound/reply)' }),
    statusCheckedAt: z.string().nullable().meta({
      description:
        "SMS: when the service last asked Twilio for the message's status, which it does for a sent SMS whose final status Twilio has not reported within 15 minutes (a lost status callback); null when never asked",
    }),
    statusCheckError: z
      .string()
      .nullable()
      .meta({ description: 'SMS: why the service stopped asking Twilio for its status (Twilio has no record of it); null otherwise' }),
    createdAt: z.string(),
  })
  .meta({ id: 'Message' });

export const MessageListQuery = PaginationQuery.extend({
  channel: anyOf(MESSAGE_CHANNELS).optional(),
  status: anyOf(MESSAGE_STATUSES).optional(),
  leadId: encodedId('lead').optional(),
  campaignId: encodedId('campaign').optional(),
});
export const MessageIdParams = z.object({ id: encodedId('message') });

export const EmailTemplateCreate = z
  .object({
    name: nonBlank(200),
    subject: nonBlank(300),
    body: z.string().min(1).max(100_000),
    format: emailFormat.optional(),
  })
  .strict()
  .meta({ id: 'EmailTemplateCreate' });
export type EmailTemplateCreate = z.output<typeof EmailTemplateCreate>;
export const EmailTemplateUpdate = EmailTemplateCreate.partial().strict().meta({ id: 'EmailTemplateUpdate' });
export const EmailTemplateRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    subject: z.string(),
    body: z.string(),
    format: z.enum(EMAIL_FORMATS),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'EmailTemplate' });
export const EmailTemplateIdParams = z.object({ id: encodedId('emailTemplate') });

/** Inbound provider webhooks (authenticated by API key): the message is named, or found by the lead's address. */
export const InboundEvent = z
  .object({
    messageId: encodedId('message').optional(),
    email: emailField.optional().meta({
      description: 'The address of a lead or of a message sent to it (422 when none matches)',
      ...references('contactEmail'),
    }),
    reason: z.string().max(1000).optional(),
    timestamp: isoDateTime
      .optional()
      .meta({ description: "When the provider saw it (default now); a time ahead of the server's clock is taken as now" }),
  })
  .strict()
  .refine((b) => b.messageId || b.email, { message: 'Give messageId or email', path: ['messageId'] })
  .meta({ id: 'InboundEvent', anyOf: [{ required: ['messageId'] }, { required: ['email'] }] });
export type InboundEvent = z.output<typeof InboundEvent>;
