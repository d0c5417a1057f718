import { createHmac } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export interface SignInput {
  eventId: string;
  /** Unix seconds. */
  timestamp: number;
  /** The exact bytes sent; receivers verify these before parsing. */
  body: string;
  /** The current secret first; during a rotation also the previous one. */
  secrets: string[];
}

/**
 * Two signature schemes over the same raw body:
 * - X-Service-Signature `t=<unix>,v1=<hex>` (Stripe style), HMAC-SHA256 keyed with the whole
 *   secret string as the user sees it, over "<t>.<body>";
 * - the Standard Webhooks trio, HMAC-SHA256 keyed with the base64-decoded part after `whsec_`, over
 *   "<id>.<t>.<body>", base64, so the `standardwebhooks` libraries verify it.
 * One v1 signature per secret: during a rotation receivers on either secret keep verifying.
 */
export function signatureHeaders({ eventId, timestamp, body, secrets }: SignInput): Record<string, string> {
  const service = secrets.map((s) => `v1=${createHmac('sha256', s).update(`${timestamp}.${body}`).digest('hex')}`);
  const standard = secrets.map((s) => {
    const key = Buffer.from(s.slice(SECRET_PREFIX.length), 'base64');
    return `v1,${createHmac('sha256', key).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`;
  });
  return {
    'X-Service-Signature': [`t=${timestamp}`, ...service].join(','),
    'X-Service-Event-Id': eventId,
    'X-Service-Timestamp': String(timestamp),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.join(' '),
  };
}
