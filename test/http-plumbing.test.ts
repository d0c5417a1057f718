import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { compose } from '../api/http/compose';
import { installJsonResponse } from '../api/http/json-response';

/** An app whose error middleware answers 500 with the error's message, so a test sees which error arrived. */
function appWith(chain: RequestHandler): express.Express {
  const app = express();
  installJsonResponse(app);
  app.get('/x', chain);
  app.use((_req, res) => void res.status(404).json({ fellThrough: true }));
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => void res.status(500).json({ error: err.message });
  app.use(onError);
  return app;
}

const mark =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.setHeader(`x-${name}`, '1');
    next();
  };

describe('compose: several middleware as one layer, with Express contract', () => {
  it('runs each in order and the last answers', async () => {
    const order: string[] = [];
    const step =
      (n: string): RequestHandler =>
      (_req, _res, next) => {
        order.push(n);
        next();
      };
    const res = await request(appWith(compose([step('a'), step('b'), (_req, res) => void res.json({ order })]))).get('/x');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ order: ['a', 'b'] });
  });

  it('goes on to the next layer when every middleware called next()', async () => {
    const res = await request(appWith(compose([mark('a'), mark('b')]))).get('/x');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ fellThrough: true });
    expect(res.headers['x-b']).toBe('1');
  });

  it.each([
    ['next(err)', ((_req, _res, next) => next(new Error('passed on'))) as RequestHandler, 'passed on'],
    [
      'a throw',
      (() => {
        throw new Error('thrown');
      }) as RequestHandler,
      'thrown',
    ],
    ['a rejected promise', (async () => Promise.reject(new Error('rejected'))) as RequestHandler, 'rejected'],
  ])('hands %s to the error middleware and skips the rest', async (_name, failing, message) => {
    const reached = jest.fn();
    const res = await request(appWith(compose([mark('a'), failing, reached]))).get('/x');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: message });
    expect(reached).not.toHaveBeenCalled();
  });
});

describe("the app's res.json", () => {
  const app = appWith((_req, res) => void res.status(201).json({ name: 'Zoë', n: 1 }));

  it('answers the JSON with its type, charset and byte length', async () => {
    const res = await request(app).get('/x');
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify({ name: 'Zoë', n: 1 }))));
    expect(res.body).toEqual({ name: 'Zoë', n: 1 });
  });

  it('sends the headers of a HEAD request without the body', async () => {
    const res = await request(app).head('/x');
    expect(res.status).toBe(201);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify({ name: 'Zoë', n: 1 }))));
    expect(res.text).toBeUndefined();
  });

  it("leaves what it does not handle to Express's own: a status without a body, a type already set, a conditional request", async () => {
    const noContent = await request(appWith((_req, res) => void res.status(204).json({ ignored: true }))).get('/x');
    expect(noContent.status).toBe(204);
    expect(noContent.headers['content-type']).toBeUndefined();
    const typed = await request(appWith((_req, res) => void res.type('application/problem+json').json({ a: 1 }))).get('/x');
    expect(typed.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    // Express answers If-None-Match: * with 304 when the resource exists; so does this app.
    const conditional = await request(app).get('/x').set('If-None-Match', '*');
    expect(conditional.status).toBe(304);
  });
});
