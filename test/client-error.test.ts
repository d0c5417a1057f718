import { connect } from 'node:net';
import express from 'express';
import { listen, type RunningServer } from '../lib/http-server';

let running: RunningServer;
beforeAll(async () => {
  running = await listen(express(), 0, '127.0.0.1');
});
afterAll(() => running.close());

/** A raw request, bytes as given: what curl sends for an unencoded non-ASCII URL. */
function rawRequest(bytes: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(running.port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe("requests Node's parser refuses", () => {
  it('get the error envelope, not a bare 400', async () => {
    const answer = await rawRequest(Buffer.from('GET /v1/search?q=JOSÉ HTTP/1.1\r\nHost: localhost\r\n\r\n', 'utf8'));
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(body)).toMatchObject({
      success: false,
      status: 400,
      message: 'The request could not be parsed: percent-encode anything but ASCII in the URL, and send well-formed headers',
      meta: { version: 'v1' },
    });
  });
});
