import { z } from 'zod';

const sid = (prefixes: string[], what: string) =>
  z
    .string()
    .regex(
      new RegExp(`^(${prefixes.join('|')})[0-9a-fA-F]{32}$`),
      `Must be a Twilio ${what} SID (${prefixes.join(' or ')} and 32 hexadecimal digits)`,
    );

/**
 * Twilio's message status callback, as it posts it (application/x-www-form-urlencoded). Only the
 * fields read are named; Twilio sends more (SmsSid, To, From, ApiVersion, ...), all kept, since the
 * signature covers every field it sent.
 */
export const TwilioStatusCallback = z
  .looseObject({
    MessageSid: sid(['SM', 'MM'], 'message'),
    MessageStatus: z.string().min(1).max(40).meta({
      description:
        'failed and undelivered fail the message (sms.failed), delivered records its delivery (sms.delivered); queued, sending, sent and any other status change nothing',
    }),
    AccountSid: sid(['AC'], 'account').meta({ description: "Must be this service's account (TWILIO_ACCOUNT_SID)" }),
    ErrorCode: z.string().max(20).optional().meta({ description: "Twilio's error code of a failed or undelivered message" }),
  })
  .meta({ id: 'TwilioStatusCallback' });
export type TwilioStatusCallback = z.infer<typeof TwilioStatusCallback>;

/** The StatusCallback URL's own parameter: the message it was created for (covered by Twilio's signature, as the whole URL is). */
export const TwilioStatusCallbackQuery = z.object({
  messageId: z.string().max(40).optional().meta({
    description:
      'The message this SMS was sent as (msg...), put in the URL the SMS was created with; absent on sends made before it was added (found by MessageSid then). An ID that does not decode falls back to MessageSid',
  }),
});

export const TwilioStatusReceipt = z
  .object({
    messageSid: z.string(),
    outcome: z.enum(['failed', 'delivered', 'unchanged', 'unknown_message']).meta({
      description:
        'failed / delivered: this callback recorded the outcome; unchanged: a non-final status, a repeat, a notice after the outcome was known, or a SID other than the one the named message was stored with; unknown_message: no SMS of this service has the ID the URL names, or the SID (logged, answered 200 so Twilio does not retry)',
    }),
  })
  .meta({ id: 'TwilioStatusReceipt' });
