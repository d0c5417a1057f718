import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { compose } from '../api/http/compose';
import { installJsonResponse } from '../api/http/json-response';
import { RouteTable } from '../api/http/route-table';

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

describe("RouteTable: the same answers as Express's router for the same routes, but one", () => {
  /** Answers what it matched; `pass` routes hand on with next() and `fail` ones reject, as handlers may. */
  const handler =
    (name: string): RequestHandler =>
    async (req, res, next) => {
      if (name === 'pass') return next();
      if (name === 'fail') throw new Error('handler failed');
      res.json({ name, route: (req.route as { path: string }).path, params: { ...req.params }, method: req.method });
    };
  const routes: [method: 'get' | 'post' | 'delete', path: string, name: string][] = [
    ['get', '/v1/leads', 'list'],
    ['post', '/v1/leads/batch', 'batch'],
    ['get', '/v1/leads/:id', 'one'],
    ['delete', '/v1/leads/:id', 'pass'],
    ['delete', '/v1/leads/:id', 'delete'],
    ['get', '/v1/leads/:id/notes/:noteId', 'note'],
    ['post', '/v1/leads/:id', 'fail'],
    ['post', '/v1/leads/:id/convert.now', 'dotted'],
    ['post', '/v1/leads/:id/notes/pinned', 'pin'],
    // Added after GET /v1/leads/:id, which Express's order lets take it.
    ['get', '/v1/leads/late', 'late'],
  ];
  const withTail = (app: express.Express) => {
    app.use((_req, res) => void res.status(404).json({ fellThrough: true }));
    const onError: ErrorRequestHandler = (err: Error & { status?: number }, _req, res, _next) =>
      void res.status(500).json({ error: err.constructor.name, status: err.status ?? null });
    app.use(onError);
    return app;
  };
  const expressApp = withTail(
    (() => {
      const app = express();
      const router = express.Router();
      for (const [method, path, name] of routes) router[method](path, handler(name));
      app.use(router);
      return app;
    })(),
  );
  const tableApp = withTail(
    (() => {
      const app = express();
      const table = new RouteTable();
      for (const [method, path, name] of routes) table.add(method, path, handler(name));
      app.use(table.dispatch);
      return app;
    })(),
  );

  const requests: [method: 'get' | 'post' | 'delete' | 'head' | 'put', path: string][] = [
    ['get', '/v1/leads'],
    ['get', '/v1/leads/'],
    ['post', '/v1/leads/batch'],
    ['get', '/v1/leads/BATCH'],
    ['get', '/v1/leads/late'],
    ['post', '/v1/leads/abc/notes/pinned'],
    ['get', '/v1/leads/abc'],
    ['get', '/V1/Leads/abc'],
    ['head', '/v1/leads/abc'],
    ['get', '/v1/leads/a%20b%2Fc'],
    ['get', '/v1/leads/%E0%A4%A'],
    ['get', '/v1/leads/abc/notes/n%C3%B6'],
    ['get', '/v1/leads/abc/notes/'],
    ['get', '/v1/leads/abc//'],
    ['get', '/v1/leads/abc/other'],
    ['delete', '/v1/leads/abc'],
    ['post', '/v1/leads/abc'],
    ['put', '/v1/leads/abc'],
    ['post', '/v1/leads/abc/convert.now'],
    ['post', '/v1/leads/abc/convertxnow'],
  ];

  it.each(requests)('%s %s', async (method, path) => {
    const [viaExpress, viaTable] = await Promise.all([request(expressApp)[method](path), request(tableApp)[method](path)]);
    expect([viaTable.status, viaTable.body]).toEqual([viaExpress.status, viaExpress.body]);
  });

  // The one departure: a fixed path is not a parameter's value for a method only a parameter route
  // takes there. Express hands `GET /v1/leads/batch` to GET /v1/leads/:id; the table goes on to the
  // app's next middleware, where the app answers 405 with the fixed path's methods.
  const departures: [method: 'get' | 'head' | 'delete', path: string, expressAnswer: string][] = [
    ['get', '/v1/leads/batch', 'one'],
    ['head', '/v1/leads/batch', 'one'],
    ['delete', '/v1/leads/batch/', 'delete'],
    ['get', '/v1/leads/abc/notes/pinned', 'note'],
  ];
  it.each(departures)('%s %s: Express answers with its parameter route, the table goes on', async (method, path, expressAnswer) => {
    const [viaExpress, viaTable] = await Promise.all([request(expressApp)[method](path), request(tableApp)[method](path)]);
    expect(viaExpress.status).toBe(200);
    if (method !== 'head') expect(viaExpress.body.name).toBe(expressAnswer);
    expect(viaTable.status).toBe(404);
    if (method !== 'head') expect(viaTable.body).toEqual({ fellThrough: true });
  });
});
