import { z } from 'zod';
import { DELIVERY_STATUSES } from '../db/entities/webhook-delivery';
import { WEBHOOK_STATUSES } from '../db/entities/webhook-endpoint';
import { CATALOG_EVENT_TYPES, EVENT_FAMILIES } from './webhook-events';
import { PaginationQuery, encodedId, isoDateTime, rangeEnd, rangeStart } from './common';
import { anyOf } from './list-filters';

const SUBSCRIBABLE = [...EVENT_FAMILIES, ...CATALOG_EVENT_TYPES];
const eventNames = z
  .array(z.enum(['*', ...SUBSCRIBABLE]))
  .min(1)
  .max(SUBSCRIBABLE.length)
  .refine((events) => !events.includes('*') || new Set(events).size === 1, "'*' subscribes to every event and stands alone")
  .transform((events) => [...new Set(events)])
  .meta({
    description:
      "Event names of the catalog and families of them (`lead.*`: every event whose name begins `lead.`, those added later too), or ['*'] for every event (repeats count once)",
    // The refinement above, as the document states it: names and families only, or '*' only.
    anyOf: [{ items: { enum: SUBSCRIBABLE } }, { items: { const: '*' } }],
  });

/** What assertPublicTarget (lib/webhooks/target-guard.ts) checks, in the document's words. */
const WEBHOOK_URL_RULE =
  'An absolute http or https URL without credentials whose host resolves only to public addresses: loopback, private, link-local and metadata addresses are a 422 (unless the server allows private targets, as dev servers do)';

/**
 * The URL's shape, as the document states it: http(s), a host name (ASCII labels, the last one
 * starting with a letter), an optional port, a path. Narrower than what the server accepts (it
 * also takes IP literals and hosts with xn-- labels), so that every URL of this shape parses: an
 * xn-- label that is not valid Punycode does not, and a regex cannot tell valid from invalid.
 */
const WEBHOOK_URL_SHAPE = '^https?://([A-Za-z0-9]+(-[A-Za-z0-9]+)*\\.)*[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*(:[1-9][0-9]{0,3})?(/[^\\s]*)?$';
const webhookUrl = z.string().trim().max(2048).meta({ description: WEBHOOK_URL_RULE, pattern: WEBHOOK_URL_SHAPE });

export const WebhookCreate = z
  .object({
    url: webhookUrl,
    events: eventNames.default(['*']),
    description: z.string().trim().max(500).nullable().optional(),
    status: z.enum(WEBHOOK_STATUSES).optional(),
  })
  .strict()
  .meta({
    id: 'WebhookCreate',
    description: 'At most WEBHOOK_ENDPOINTS_MAX (default 20) endpoints per tenant and environment; one more is a 422 naming url',
  });
export type WebhookCreate = z.output<typeof WebhookCreate>;

export const WebhookUpdate = z
  .object({
    url: webhookUrl.optional(),
    events: eventNames.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    status: z.enum(WEBHOOK_STATUSES).optional(),
  })
  .strict()
  .meta({ id: 'WebhookUpdate' });
export type WebhookUpdate = z.output<typeof WebhookUpdate>;

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(WEBHOOK_STATUSES),
    disabledReason: z.string().nullable().meta({ description: 'Set when the service disabled the endpoint (410, failing deliveries)' }),
    disabledAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.output<typeof Webhook>;

export const WebhookWithSecret = Webhook.extend({
  secret: z.string().meta({ description: '`whsec_` + base64 of 32 random bytes; signs every delivery' }),
}).meta({ id: 'WebhookWithSecret' });

export const WebhookSecret = z
  .object({
    secret: z.string(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .meta({ description: 'Until then the previous secret also signs (a second v1 signature)' }),
  })
  .meta({ id: 'WebhookSecret' });

export const WebhookIdParams = z.object({ id: encodedId('webhook') });
export const DeliveryIdParams = z.object({ deliveryId: encodedId('delivery') });

export const WebhookListQuery = PaginationQuery.extend({ status: anyOf(WEBHOOK_STATUSES).optional() });

export const DeliveryListQuery = PaginationQuery.extend({
  status: anyOf(DELIVERY_STATUSES).optional(),
  eventType: z.string().max(60).optional(),
  createdFrom: rangeStart.optional(),
  createdTo: rangeEnd.optional(),
});

export const WebhookDelivery = z
  .object({
    id: z.string(),
    webhookId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attemptCount: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.output<typeof WebhookDelivery>;

const WebhookDeliveryAttempt = z
  .object({
    attemptNumber: z.number().int(),
    statusCode: z.number().int().nullable(),
    latencyMs: z.number().int(),
    responseSnippet: z.string().nullable().meta({ description: 'At most 1 KB of the response body' }),
    error: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });

const Envelope = z
  .object({ id: z.string(), type: z.string(), createdAt: z.string(), data: z.record(z.string(), z.unknown()) })
  .meta({ id: 'WebhookEnvelope' });

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  payload: Envelope.nullable().meta({ description: 'The body that is signed and sent' }),
  attempts: z.array(WebhookDeliveryAttempt),
}).meta({ id: 'WebhookDeliveryDetail' });

/** How far back `recover` reaches: a bounded fan-out, and older failures are the receiver's own outage to replay. */
export const RECOVER_WINDOW_DAYS = 30;
const RECOVER_WINDOW_MS = RECOVER_WINDOW_DAYS * 24 * 3600_000;
export const RecoverBody = z
  .object({
    since: isoDateTime
      .refine((v) => Date.parse(v) >= Date.now() - RECOVER_WINDOW_MS, `Must be within the last ${RECOVER_WINDOW_DAYS} days`)
      .describe(`At most ${RECOVER_WINDOW_DAYS} days ago; every failed delivery created since then is re-sent`),
  })
  .strict()
  .meta({ id: 'WebhookRecover' });

const CatalogGroup = z.array(z.object({ event: z.string(), description: z.string(), examplePayload: Envelope }));

export const WebhookCatalog = z
  .object({
    leads: CatalogGroup,
    opportunities: CatalogGroup,
    partners: CatalogGroup,
    commissions: CatalogGroup,
    tasks: CatalogGroup,
    forms: CatalogGroup,
    email: CatalogGroup,
    sms: CatalogGroup,
    campaigns: CatalogGroup,
  })
  .meta({ id: 'WebhookCatalog' });
