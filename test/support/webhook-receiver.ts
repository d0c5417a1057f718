import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
  /** Which of the receiver's secrets verified X-Service-Signature, and the Standard Webhooks headers. */
  serviceVerifiedWith: string[];
  standardVerifiedWith: string[];
}

/** Verifies `t=<unix>,v1=<hex>[,v1=<hex>...]` the way a receiver would: recompute, compare in constant time. */
function verifyServiceSignature(header: string, rawBody: string, secret: string): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * A real HTTP receiver on 127.0.0.1. `respond` chooses each answer's status (default 200); every
 * request is recorded with the result of verifying both signature schemes against `secrets`.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  secrets: string[] = [];
  /** The status of the n-th request; a promise holds the answer back (an attempt in flight) until it settles. */
  respond: (n: number, req: { path: string }) => number | Promise<number> = () => 200;
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const headers = req.headers;
      const standard = this.secrets.filter((s) => {
        try {
          new Webhook(s).verify(rawBody, headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      });
      const service = this.secrets.filter((s) => verifyServiceSignature(String(headers['x-service-signature'] ?? ''), rawBody, s));
      const path = req.url ?? '/';
      this.received.push({
        path,
        headers,
        rawBody,
        body: JSON.parse(rawBody),
        serviceVerifiedWith: service,
        standardVerifiedWith: standard,
      });
      void Promise.resolve(this.respond(this.received.length, { path })).then((status) => {
        res.writeHead(status, { 'Content-Type': 'text/plain' });
        res.end(`answer ${status}`);
      });
    });
  });

  /** `port`: listen where an earlier run of this receiver did, like a receiver coming back up. */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  for(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Polls until `count` requests reached `path` (deliveries are asynchronous). */
  async waitFor(path: string, count: number, timeoutMs = 20_000): Promise<ReceivedWebhook[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.for(path).length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} deliveries to ${path}, got ${this.for(path).length}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.for(path);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
