import type request from 'supertest';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';

/** The account a test's Twilio stand-in plays, and the callback URL its sends name. */
export interface TwilioAccount {
  accountSid: string;
  authToken: string;
  callbackUrl: string;
}

export interface Signing {
  token?: string;
  /** The URL Twilio calls, posted to and signed: by default the bare callback URL that sends made before message IDs were added name. */
  to?: string;
  /** Signed instead of `to`. */
  url?: string;
  /** Sent as given instead; null: no header. */
  signature?: string | null;
}

/** A status callback as Twilio posts it, signed as Twilio would unless `Signing` says otherwise. */
export function twilioCallback(
  http: () => request.Agent,
  account: TwilioAccount,
  fields: { MessageSid: string; MessageStatus: string; ErrorCode?: string; AccountSid?: string },
  { token = account.authToken, to = account.callbackUrl, url = to, signature }: Signing = {},
): request.Test {
  const params = {
    AccountSid: account.accountSid,
    ApiVersion: '2010-04-01',
    SmsSid: fields.MessageSid,
    SmsStatus: fields.MessageStatus,
    ...fields,
  };
  const target = new URL(to);
  const req = http()
    .post(target.pathname + target.search)
    .type('form');
  if (signature !== null) req.set('X-Twilio-Signature', signature ?? getExpectedTwilioSignature(token, url, params));
  return req.send(params);
}
