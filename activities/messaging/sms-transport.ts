import { ApplicationFailure } from '@temporalio/activity';
import twilio from 'twilio';
import type { RequestOptions } from 'twilio/lib/base/RequestClient';
import { twilioStatusCallbackFor } from '../../domain/communications/twilio-status';
import type { TwilioSettings } from './settings';

/** Sends one SMS and returns the provider's ID; `messageId` (encoded) names our message in its status callbacks. */
export type SmsSender = (sms: { to: string; body: string; messageId: string }) => Promise<string>;

/**
 * The twilio client accepts only an edge or region, not a base URL, so a custom `httpClient`
 * rewrites every request's origin to TWILIO_API_BASE_URL (path and query unchanged).
 */
class RebasedRequestClient extends twilio.RequestClient {
  constructor(private readonly base: URL) {
    super();
  }

  override request<TData>(opts: RequestOptions<TData>) {
    const uri = new URL(opts.uri);
    return super.request<TData>({ ...opts, uri: new URL(uri.pathname + uri.search, this.base).toString() });
  }
}

/**
 * twilio Messages API. 4xx other than 429 are permanent (bad number, unverified sender). With a
 * status callback, Twilio later posts the message's delivered / failed / undelivered status there,
 * to a URL naming the message, so a status that beats the stored SID still finds it.
 */
export function twilioSender(settings: TwilioSettings): SmsSender {
  const client = twilio(settings.accountSid, settings.authToken, {
    httpClient: settings.apiBaseUrl ? new RebasedRequestClient(new URL(settings.apiBaseUrl)) : undefined,
  });
  return async ({ to, body, messageId }) => {
    const statusCallback = settings.statusCallback ? twilioStatusCallbackFor(settings.statusCallback, messageId) : undefined;
    try {
      const sent = await client.messages.create({ to, from: settings.from, body, statusCallback });
      return sent.sid;
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status && status >= 400 && status < 500 && status !== 429) {
        throw ApplicationFailure.nonRetryable(`Twilio refused the message: ${(err as Error).message}`, 'TwilioRejected');
      }
      throw err;
    }
  };
}
