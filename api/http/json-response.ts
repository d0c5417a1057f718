import express, { type Express, type Response } from 'express';

const expressJson = express.response.json;

/**
 * The app's `res.json`: the same headers and body as Express's, written directly. Express's goes
 * through its general `send` (Content-Type parsing, ETag and freshness checks), which this app
 * does not use for JSON: ETags are off and no JSON route sets Last-Modified. That path is kept for
 * what it handles differently: a Content-Type or Transfer-Encoding already set, a status without
 * a body, a conditional request, a body JSON has no text for.
 */
function json(this: Response, body: unknown): Response {
  const headers = this.req.headers;
  const special =
    this.statusCode === 204 ||
    this.statusCode === 205 ||
    this.statusCode === 304 ||
    this.hasHeader('Content-Type') ||
    this.hasHeader('Transfer-Encoding') ||
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined;
  const text = special ? undefined : JSON.stringify(body);
  if (text === undefined) return expressJson.call(this, body);
  this.setHeader('Content-Type', 'application/json; charset=utf-8');
  this.setHeader('Content-Length', Buffer.byteLength(text));
  if (this.req.method === 'HEAD') this.end();
  else this.end(text);
  return this;
}

/** On the app's own response prototype (`app.response`), so other apps in the process keep Express's. */
export function installJsonResponse(app: Express): void {
  app.response.json = json;
}
