import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface TwilioRequest {
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
  /** The SID answered for an accepted message. */
  sid?: string;
}

/** A local stand-in for the Twilio Messages API, reached by the real twilio client via TWILIO_API_BASE_URL. */
export class FakeTwilio {
  requests: TwilioRequest[] = [];
  /** Numbers refused with Twilio's 400 (error 21211, not a valid phone number), as Twilio answers for them. */
  readonly invalidNumbers = new Set<string>();
  private server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const request: TwilioRequest = { path: req.url ?? '', authorization: req.headers.authorization, form: new URLSearchParams(body) };
      this.requests.push(request);
      const to = new URLSearchParams(body).get('To') ?? '';
      if (this.invalidNumbers.has(to)) {
        res.writeHead(400, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            code: 21211,
            message: `The 'To' number ${to} is not a valid phone number.`,
            more_info: 'https://www.twilio.com/docs/errors/21211',
            status: 400,
          }),
        );
        return;
      }
      // Random, as Twilio's are unique: test files share one database, and status callbacks find a message by SID alone.
      const sid = `SM${randomBytes(16).toString('hex')}`;
      request.sid = sid;
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ sid, status: 'queued', to: new URLSearchParams(body).get('To'), body: new URLSearchParams(body).get('Body') }),
      );
    });
  });

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
