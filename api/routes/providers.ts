import type { Request } from 'express';
import { z } from 'zod';
import { TwilioStatusCallback, TwilioStatusCallbackQuery, TwilioStatusReceipt } from '../../contracts/twilio';
import { applyTwilioStatus, TWILIO_STATUS_PATH, type TwilioCallbackSettings } from '../../domain/communications/twilio-status';
import { AppError } from '../../lib/errors';
import { decodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import { signedByTwilio, twilioSignedUrl } from '../http/twilio-signature';

const TwilioSignatureHeaders = z.object({
  'x-twilio-signature': z.string().max(200).optional().meta({
    description: "Twilio's HMAC-SHA1 of the callback URL and the posted fields under the account's auth token; required",
  }),
});

function configured(settings: TwilioCallbackSettings | undefined): TwilioCallbackSettings {
  if (settings) return settings;
  throw new AppError(
    'not_found',
    'Twilio status callbacks are not set up on this service: set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and PUBLIC_BASE_URL (the address Twilio reaches this API at)',
  );
}

/**
 * Twilio signs the URL it called, so the check uses the one it was given (PUBLIC_BASE_URL's, plus
 * any query string), never the Host a proxy passed on; the fields are checked as posted.
 */
function verifySignature(settings: TwilioCallbackSettings, signature: string | undefined, req: Request): void {
  if (!signature) {
    throw new AppError(
      'forbidden',
      "X-Twilio-Signature is missing: this endpoint takes only Twilio's status callbacks, which Twilio signs with the account's auth token",
    );
  }
  if (!signedByTwilio(settings, req)) {
    throw new AppError(
      'forbidden',
      `X-Twilio-Signature does not match this request (signed for ${twilioSignedUrl(settings, req)}); if Twilio sent it, check that TWILIO_AUTH_TOKEN is the account's current auth token and PUBLIC_BASE_URL the address Twilio calls`,
    );
  }
}

/** Callbacks from providers the service sends through: unauthenticated, each signed by its provider. */
export function providerRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'post',
      path: TWILIO_STATUS_PATH,
      summary:
        "Twilio's message status callback (signed with X-Twilio-Signature): failed or undelivered fails the SMS and fires sms.failed, delivered fires sms.delivered, each once",
      tag: 'Communications',
      auth: 'public',
      bodyType: 'form',
      headers: TwilioSignatureHeaders,
      query: TwilioStatusCallbackQuery,
      body: TwilioStatusCallback,
      response: TwilioStatusReceipt,
      status: 200,
      // 403: a missing or wrong signature, another account; 404: Twilio is not configured here;
      // 429: PUBLIC_PROVIDER_CALLBACKS_LIMIT_PER_MINUTE, counting only requests Twilio did not sign (providerCallbackRateLimit).
      errors: [403, 404, 429],
      handler: async ({ body, headers, query, req }) => {
        const settings = configured(deps.twilio);
        if (!req.is('application/x-www-form-urlencoded')) {
          throw new AppError(
            'unsupported_media_type',
            'Content-Type must be application/x-www-form-urlencoded, as Twilio posts its callbacks',
          );
        }
        verifySignature(settings, headers['x-twilio-signature'], req);
        if (body.AccountSid !== settings.accountSid) {
          throw new AppError(
            'forbidden',
            `AccountSid ${body.AccountSid} is not this service's Twilio account: only the account in TWILIO_ACCOUNT_SID reports here`,
          );
        }
        // Signed with the URL, so the ID is the one the send put there; one that does not decode (ID_SECRET changed) leaves the SID.
        const messageId = query.messageId === undefined ? null : decodeId('message', query.messageId);
        const outcome = await applyTwilioStatus(deps, {
          messageSid: body.MessageSid,
          status: body.MessageStatus,
          errorCode: body.ErrorCode,
          ...(messageId ? { messageId } : {}),
        });
        return { data: { messageSid: body.MessageSid, outcome }, message: 'Status received' };
      },
    }),
  ];
}
