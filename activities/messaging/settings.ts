import { trackingSettingsFromConfig, type TrackingSettings } from '../../domain/communications/compose-email';
import type { Config } from '../../lib/config';
import type { Message } from '../../db/entities';
import { twilioStatusCallbackUrl } from '../../domain/communications/twilio-status';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  from: string;
  /** Replaces https://<product>.twilio.com; tests point it at a local server. */
  apiBaseUrl?: string;
  /**
   * Where Twilio reports each SMS's later statuses (PUBLIC_BASE_URL's /v1/providers/twilio/status),
   * each SMS's URL naming it (`?messageId=`); unset: none are reported.
   */
  statusCallback?: string;
}

export interface MessagingSettings {
  /** Unset: email is recorded by the capture transport, never delivered. */
  smtpUrl?: string;
  emailFrom: string;
  /** Opens the DKIM private keys tenants registered (default: DKIM_KEY_SECRET). */
  dkimKeySecret?: string;
  /** Unset: SMS is recorded by the capture transport. */
  twilio?: TwilioSettings;
  tracking: TrackingSettings;
  /** Test hook: runs after the provider accepted a message and before it is marked sent (crash injection). */
  afterProviderAccept?: (message: Message) => void | Promise<void>;
  /** Test hook: runs after failMessage's transaction committed, before the activity completes (a lost completion). */
  afterFailRecorded?: (messageId: string) => void | Promise<void>;
}

export function messagingSettingsFromConfig(config: Config): MessagingSettings {
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_FROM: from } = config;
  return {
    smtpUrl: config.SMTP_URL,
    emailFrom: config.EMAIL_FROM,
    dkimKeySecret: config.DKIM_KEY_SECRET,
    twilio:
      accountSid && authToken && from
        ? {
            accountSid,
            authToken,
            from,
            apiBaseUrl: config.TWILIO_API_BASE_URL,
            statusCallback: config.PUBLIC_BASE_URL ? twilioStatusCallbackUrl(config.PUBLIC_BASE_URL) : undefined,
          }
        : undefined,
    tracking: trackingSettingsFromConfig(config),
  };
}
