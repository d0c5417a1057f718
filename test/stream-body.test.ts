import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import express from 'express';
import { streamBody } from '../api/http/stream-body';

/** A real HTTP server streaming through streamBody; `source` makes each response's body. */
async function serve(source: () => Readable): Promise<{ server: Server; url: string; outcomes: Promise<unknown>[] }> {
  const outcomes: Promise<unknown>[] = [];
  const app = express().get('/bytes', (_req, res) => {
    outcomes.push(
      streamBody(source(), res).then(
        () => 'ended',
        (err: Error) => err.message,
      ),
    );
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bytes`, outcomes };
}

describe('streamBody', () => {
  it('ends quietly when the client leaves mid-transfer, and still fails when the source does', async () => {
    const endless = () =>
      new Readable({
        read() {
          setTimeout(() => this.push(Buffer.alloc(64 * 1024)), 5);
        },
      });
    const { server, url, outcomes } = await serve(endless);
    try {
      await new Promise<void>((resolve) => {
        const req = request(url, (res) =>
          res.once('data', () => {
            req.destroy();
            resolve();
          }),
        );
        req.end();
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(await Promise.all(outcomes)).toEqual(['ended']);
    } finally {
      server.close();
    }

    const broken = () =>
      new Readable({
        read() {
          this.destroy(new Error('disk read failed'));
        },
      });
    const second = await serve(broken);
    try {
      await fetch(second.url).catch(() => undefined);
      expect(await Promise.all(second.outcomes)).toEqual(['disk read failed']);
    } finally {
      second.server.close();
    }
  });
});
