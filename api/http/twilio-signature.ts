import type { Request } from 'express';
// The webhook helpers alone, not the whole REST client the API never calls.
import { validateRequest } from 'twilio/lib/webhooks/webhooks';
import { twilioStatusCallbackUrl, type TwilioCallbackSettings } from '../../domain/communications/twilio-status';

/**
 * The URL Twilio called and signed: the one it was given (PUBLIC_BASE_URL's, plus the query string
 * exactly as received, which names the message), never the Host a proxy passed on.
 */
export function twilioSignedUrl(settings: TwilioCallbackSettings, req: Request): string {
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
  return twilioStatusCallbackUrl(settings.publicBaseUrl) + query;
}

/** Whether X-Twilio-Signature is Twilio's HMAC of that URL and the posted form fields under the auth token. */
export function signedByTwilio(settings: TwilioCallbackSettings, req: Request): boolean {
  const signature = req.get('x-twilio-signature');
  const fields = req.body as unknown;
  if (!signature || typeof fields !== 'object' || fields === null) return false;
  return validateRequest(settings.authToken, signature, twilioSignedUrl(settings, req), fields as Record<string, unknown>);
}
