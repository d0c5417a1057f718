import { ApplicationFailure } from '@temporalio/activity';
import type { SmsStatusLookup } from '../../domain/communications/reconcile-sms-statuses';
import type { TwilioSettings } from './settings';
import { twilioClient } from './twilio-client';

/** Each status request's bound: a pass asks for up to hundreds, and a hung Twilio must not hold it for 30 s each. */
const LOOKUP_TIMEOUT_MS = 10_000;

/**
 * Asks Twilio's Messages API for one message (GET .../Messages/{Sid}.json) and classifies what
 * went wrong: 404 (and any other 4xx but 401, 403 and 429) is this message's for good; 401 / 403
 * are the account's (a wrong auth token), so the pass stops with a non-retryable failure an
 * operator sees rather than marking every message; 429, 5xx and network errors are transient.
 */
export function twilioStatusLookup(settings: TwilioSettings): SmsStatusLookup {
  const client = twilioClient(settings, { timeout: LOOKUP_TIMEOUT_MS });
  return async (sid) => {
    try {
      const message = await client.messages(sid).fetch();
      return { kind: 'status', status: message.status, errorCode: message.errorCode == null ? undefined : String(message.errorCode) };
    } catch (err) {
      const { status, code } = err as { status?: number; code?: number | string };
      const detail = `${status ? `HTTP ${status}` : 'no answer'}${code ? `, ${code}` : ''}: ${(err as Error).message}`;
      if (status === 401 || status === 403) {
        throw ApplicationFailure.nonRetryable(
          `Twilio refused TWILIO_ACCOUNT_SID / TWILIO_AUTH_TOKEN (${detail}); SMS statuses are not checked until they are fixed`,
          'TwilioUnauthorized',
        );
      }
      if (status && status >= 400 && status < 500 && status !== 429) {
        return { kind: 'gone', reason: `Twilio has no status for this SMS (${detail}); no longer checked` };
      }
      return { kind: 'transient', reason: detail };
    }
  };
}
