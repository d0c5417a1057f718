import twilio from 'twilio';
import type { RequestOptions } from 'twilio/lib/base/RequestClient';
import type { TwilioSettings } from './settings';

/**
 * The twilio client accepts only an edge or region, not a base URL, so a custom `httpClient`
 * rewrites every request's origin to TWILIO_API_BASE_URL (path and query unchanged).
 */
class RebasedRequestClient extends twilio.RequestClient {
  constructor(
    private readonly base: URL,
    opts: { timeout?: number },
  ) {
    super(opts);
  }

  override request<TData>(opts: RequestOptions<TData>) {
    const uri = new URL(opts.uri);
    return super.request<TData>({ ...opts, uri: new URL(uri.pathname + uri.search, this.base).toString() });
  }
}

/** The account's REST client (at TWILIO_API_BASE_URL when set); `timeout` bounds each request (the library's default: 30 s). */
export function twilioClient(settings: Pick<TwilioSettings, 'accountSid' | 'authToken' | 'apiBaseUrl'>, opts: { timeout?: number } = {}) {
  return twilio(settings.accountSid, settings.authToken, {
    timeout: opts.timeout,
    httpClient: settings.apiBaseUrl ? new RebasedRequestClient(new URL(settings.apiBaseUrl), opts) : undefined,
  });
}
