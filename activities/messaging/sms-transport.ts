import { ApplicationFailure } from '@temporalio/activity';
import { twilioStatusCallbackFor } from '../../domain/communications/twilio-status';
import type { TwilioSettings } from './settings';
import { twilioClient } from './twilio-client';

/** Sends one SMS and returns the provider's ID; `messageId` (encoded) names our message in its status callbacks. */
export type SmsSender = (sms: { to: string; body: string; messageId: string }) => Promise<string>;

/**
 * twilio Messages API. 4xx other than 429 are permanent (bad number, unverified sender). With a
 * status callback, Twilio later posts the message's delivered / failed / undelivered status there,
 * to a URL naming the message, so a status that beats the stored SID still finds it.
 */
export function twilioSender(settings: TwilioSettings): SmsSender {
  const client = twilioClient(settings);
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
