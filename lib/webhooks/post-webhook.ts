import http from 'node:http';
import https from 'node:https';
import type { DnsSettings } from '../dns';
import { assertLiteralHostAllowed, guardedLookup, parseTargetUrl } from './target-guard';

const DELIVERY_TIMEOUT_MS = 10_000;
/** Only the start of a receiver's answer is read: enough for the log, bounded for memory. */
const MAX_READ_BYTES = 4 * 1024;

export interface PostResult {
  statusCode: number;
  body: string;
  latencyMs: number;
}

/**
 * One POST of a signed body. No redirects are followed (a 3xx is just a non-2xx answer), the
 * connect-time DNS answer is checked against SSRF, and the whole exchange is bounded by a timeout.
 * Throws TargetRefusedError for a refused target and other errors for network failures.
 */
export function postWebhook(opts: {
  url: string;
  headers: Record<string, string>;
  body: string;
  allowPrivate: boolean;
  /** Default: the system's DNS servers, WEBHOOK_DNS_TIMEOUT_MS. */
  dns?: DnsSettings;
}): Promise<PostResult> {
  const url = parseTargetUrl(opts.url);
  assertLiteralHostAllowed(url, opts.allowPrivate);
  const started = Date.now();
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...opts.headers,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(opts.body),
          'User-Agent': 'lead-engagement-webhooks/1',
        },
        lookup: guardedLookup(opts.allowPrivate, opts.dns),
        timeout: DELIVERY_TIMEOUT_MS,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), latencyMs: Date.now() - started });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          if (size >= MAX_READ_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_READ_BYTES - size));
          size += chunk.length;
          if (size >= MAX_READ_BYTES) finish();
        });
        res.on('end', finish);
        res.on('error', finish);
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`Timed out after ${DELIVERY_TIMEOUT_MS / 1000}s`)), DELIVERY_TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error(`Timed out after ${DELIVERY_TIMEOUT_MS / 1000}s`)));
    req.on('error', (err) => {
      clearTimeout(deadline);
      reject(err);
    });
    req.on('close', () => clearTimeout(deadline));
    req.end(opts.body);
  });
}
