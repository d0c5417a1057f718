import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';

export interface TwilioRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
  /** The SID answered for an accepted message. */
  sid?: string;
}

/** What a message fetch answers for one SID: the message in a status, or an HTTP error (500: Twilio's trouble; 404: no such message). */
export type TwilioMessageState = { status: string; errorCode?: number } | { httpStatus: 404 | 500 };

/** Twilio's answer to a request whose HTTP Basic credentials are not the account's SID and auth token. */
const UNAUTHORIZED = {
  code: 20003,
  message: 'Authenticate',
  more_info: 'https://www.twilio.com/docs/errors/20003',
  status: 401,
};

/** Twilio's answer when it is in trouble (a 5xx the client may retry later). */
const INTERNAL_ERROR = {
  code: 20500,
  message: 'An internal server error has occurred',
  more_info: 'https://www.twilio.com/docs/errors/20500',
  status: 500,
};

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** GET /2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}.json, as the client's messages(sid).fetch() asks. */
const MESSAGE_FETCH = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\/([^/]+)\.json$/;

/**
 * A local stand-in for the Twilio Messages API, reached by the real twilio client via
 * TWILIO_API_BASE_URL. Like Twilio, it answers only requests authenticated (HTTP Basic) with its
 * account's SID and auth token, and 401 otherwise.
 */
export class FakeTwilio {
  requests: TwilioRequest[] = [];
  readonly accountSid: string;
  /** The token Twilio accepts: a test changes it to play an auth token rotated in Twilio's console but not in our settings. */
  authToken: string;
  /** While set, Twilio is down: every request it authenticates answers 500 (error 20500). */
  unavailable = false;
  /** Numbers refused with Twilio's 400 (error 21211, not a valid phone number), as Twilio answers for them. */
  readonly invalidNumbers = new Set<string>();
  /**
   * What fetching each message answers. A message this stand-in accepted and no entry names is
   * `sent` (Twilio's status until the carrier reports); a SID it never gave is a 404, as Twilio's.
   */
  readonly messages = new Map<string, TwilioMessageState>();
  private readonly accepted = new Set<string>();

  private server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const request: TwilioRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        form: new URLSearchParams(body),
      };
      this.requests.push(request);
      if (!this.authenticates(request.authorization)) {
        json(res, 401, UNAUTHORIZED);
        return;
      }
      if (this.unavailable) {
        json(res, 500, INTERNAL_ERROR);
        return;
      }
      const fetch = req.method === 'GET' ? MESSAGE_FETCH.exec(new URL(request.path, 'http://twilio').pathname) : null;
      if (fetch) {
        this.answerFetch(res, fetch[1], decodeURIComponent(fetch[2]));
        return;
      }
      const to = new URLSearchParams(body).get('To') ?? '';
      if (this.invalidNumbers.has(to)) {
        json(res, 400, {
          code: 21211,
          message: `The 'To' number ${to} is not a valid phone number.`,
          more_info: 'https://www.twilio.com/docs/errors/21211',
          status: 400,
        });
        return;
      }
      // Random, as Twilio's are unique: test files share one database, and status callbacks find a message by SID alone.
      const sid = `SM${randomBytes(16).toString('hex')}`;
      request.sid = sid;
      this.accepted.add(sid);
      json(res, 201, { sid, status: 'queued', to, body: new URLSearchParams(body).get('Body') });
    });
  });

  constructor(account: { accountSid: string; authToken: string }) {
    this.accountSid = account.accountSid;
    this.authToken = account.authToken;
  }

  private authenticates(authorization: string | undefined): boolean {
    const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
    return authorization === expected;
  }

  /** The message fetches made for `sid`. */
  fetchesOf(sid: string): TwilioRequest[] {
    return this.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/Messages/${sid}.json`));
  }

  private answerFetch(res: ServerResponse, accountSid: string, sid: string): void {
    const state = this.messages.get(sid) ?? (this.accepted.has(sid) ? { status: 'sent' } : { httpStatus: 404 as const });
    if ('httpStatus' in state) {
      if (state.httpStatus === 404) {
        json(res, 404, {
          code: 20404,
          message: `The requested resource /2010-04-01/Accounts/${accountSid}/Messages/${sid}.json was not found`,
          more_info: 'https://www.twilio.com/docs/errors/20404',
          status: 404,
        });
      } else {
        json(res, 500, INTERNAL_ERROR);
      }
      return;
    }
    json(res, 200, {
      sid,
      account_sid: accountSid,
      status: state.status,
      error_code: state.errorCode ?? null,
      error_message: state.errorCode ? 'Unknown destination handset' : null,
      direction: 'outbound-api',
      num_segments: '1',
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
