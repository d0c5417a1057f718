import express from 'express';
import request from 'supertest';
import { createApp, flushApp } from '../api/app';
import { errorHandler } from '../api/middleware/error-handler';
import { initializeDatabase } from '../db/data-source';
import { LIST_COUNT_CAP } from '../db/counted-page';
import { decodeId } from '../lib/ids';
import { requestId } from '../api/middleware/request-id';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const expectMeta = (body: { meta: { timestamp: string; version: string } }) => {
  expect(body.meta.version).toBe('v1');
  expect(new Date(body.meta.timestamp).toISOString()).toBe(body.meta.timestamp);
};

describe('HTTP conventions', () => {
  it('wraps a success in the envelope with status, message, data and meta', async () => {
    const res = await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, status: 201, message: expect.any(String), data: expect.any(Object) });
    expectMeta(res.body);
  });

  it('adds a pagination object to list responses', async () => {
    const res = await stack.http().get('/v1/leads?limit=1').set(tenant.sandbox);
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 1, total: 1, totalPages: 1, hasNext: false, hasPrev: false });
  });

  it('answers malformed JSON with 400 in the error envelope', async () => {
    const res = await stack.http().post('/v1/leads').set(tenant.sandbox).set('Content-Type', 'application/json').send('{"email": ');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, status: 400, message: 'Malformed JSON in request body' });
    expectMeta(res.body);
    expect(res.body.data).toBeUndefined();
    const comma = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .set('Content-Type', 'application/json')
      .send('{\n"email": "a@example.com",\n}');
    expect(comma.body.errors).toEqual([
      { field: 'body', message: 'Not valid JSON at line 3, column 1: a comma before }, which JSON does not allow' },
    ]);
  });

  it('answers a JSON body that is not an object with 400, naming what it is', async () => {
    const res = await stack.http().post('/v1/leads').set(tenant.sandbox).set('Content-Type', 'application/json').send('42');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      message: 'Request body must be a JSON object',
      errors: [{ field: 'body', message: 'Must be a JSON object, not a number' }],
    });
  });

  it('reads no body on a GET or DELETE: one sent there, malformed or not, changes nothing', async () => {
    const res = await stack.http().get('/v1/leads').set(tenant.sandbox).set('Content-Type', 'application/json').send('{"email": ');
    expect(res.status).toBe(200);
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead()).expect(201)).body.data;
    await stack.http().delete(`/v1/leads/${lead.id}`).set(tenant.sandbox).set('Content-Type', 'text/plain').send('not json').expect(200);
  });

  it('answers an unknown route with 404, naming the route it probably meant and where every route is listed', async () => {
    const res = await stack.http().get('/v1/nothing-here').set(tenant.sandbox);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      success: false,
      status: 404,
      message: 'Route GET /v1/nothing-here not found; every route is in the API reference at /docs',
    });
    const meant = async (method: 'get' | 'post', path: string) =>
      (await stack.http()[method](path).set(tenant.sandbox).expect(404)).body.message;
    // A word left out, misspelt or in the singular; an ID where the route takes one; the method the caller used first.
    expect(await meant('post', '/v1/webhooks')).toBe(
      'Route POST /v1/webhooks not found (did you mean POST /v1/integrations/webhooks?); every route is in the API reference at /docs',
    );
    expect(await meant('get', '/v1/webhooks/whkAb12Cd/deliveries')).toMatch(
      /did you mean GET \/v1\/integrations\/webhooks\/:id\/deliveries\?/,
    );
    expect(await meant('get', '/v1/lead/leaQY0MXbmNqrDE5')).toMatch(/did you mean GET \/v1\/leads\/:id\?/);
    expect(await meant('post', '/v1/campains/cmpX9/enrollments')).toMatch(/did you mean POST \/v1\/campaigns\/:id\/enrollments\?/);
    expect(await meant('get', '/leads')).toMatch(/did you mean GET \/v1\/leads\?/);
    expect(await meant('get', '/v1/opportunity/oppAb12Cd')).toMatch(/did you mean GET \/v1\/opportunities\/:id\?/);
    // A collection nested under its parent, as other APIs nest it: here it takes the parent as a filter or field.
    expect(await meant('get', '/v1/partners/parAb12Cd/commissions')).toBe(
      'Route GET /v1/partners/parAb12Cd/commissions not found (did you mean GET /v1/commissions?partnerId=parAb12Cd?); every route is in the API reference at /docs',
    );
    expect(await meant('get', '/v1/leads/leaAb12Cd/messages')).toMatch(
      /did you mean GET \/v1\/communications\/messages\?leadId=leaAb12Cd\?/,
    );
    expect(await meant('post', '/v1/leads/leaAb12Cd/tasks')).toMatch(/did you mean POST \/v1\/tasks with leadId in the body\?/);
    // Nothing to go by: no suggestion rather than a guess (a collection that takes no such filter included).
    for (const path of ['/v1/xyz', '/v1/enrollments', '/v1/teams/teaAb12Cd/tasks', '/v1/leads/leaAb12Cd/colours'])
      expect(await meant('get', path)).not.toMatch(/did you mean/);
  });

  it('answers an unsupported method on an existing path with 405 and Allow, not 404', async () => {
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    const put = await stack.http().put(`/v1/leads/${lead.id}`).set(tenant.sandbox).send({ firstName: 'Ada' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    expect(put.body).toMatchObject({ success: false, status: 405, message: expect.stringMatching(/PUT is not allowed/) });
    const trace = await stack.http().trace('/v1/leads');
    expect([trace.status, trace.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    const unknown = await stack.http().put('/v1/nothing-here').set(tenant.sandbox);
    expect(unknown.status).toBe(404);
    // The public routes outside the route runner too (tracking links, hosted pages).
    const pixel = await stack.http().delete('/v1/t/o/some-token');
    expect([pixel.status, pixel.headers.allow]).toEqual([405, 'GET, HEAD']);
    const unsubscribe = await stack.http().put('/v1/t/u/some-token');
    expect([unsubscribe.status, unsubscribe.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    const page = await stack.http().post(`/p/${tenant.id}/welcome`);
    expect([page.status, page.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('answers 405 on a fixed path asked with a method only a parameter route beside it takes (GET /v1/files/upload)', async () => {
    // GET /v1/files/:id would take `upload` as an ID and say "File not found": the fixed segment names the path.
    const get = await stack.http().get('/v1/files/upload').set(tenant.sandbox);
    expect([get.status, get.headers.allow]).toEqual([405, 'POST']);
    expect(get.body).toMatchObject({
      success: false,
      status: 405,
      message: 'Method GET is not allowed on /v1/files/upload; use POST',
    });
    expectMeta(get.body);
    const head = await stack.http().head('/v1/files/upload').set(tenant.sandbox);
    expect([head.status, head.headers.allow]).toEqual([405, 'POST']);
    const batch = await stack.http().delete('/v1/leads/batch').set(tenant.sandbox);
    expect([batch.status, batch.headers.allow]).toEqual([405, 'PATCH, POST']);
    const options = await stack.http().options('/v1/files/upload');
    expect([options.status, options.headers.allow]).toEqual([204, 'POST']);
    // The parameter routes themselves answer as before.
    const file = await stack.http().get('/v1/files/uploadx').set(tenant.sandbox);
    expect([file.status, file.body.message]).toEqual([404, 'File not found']);
    expect((await stack.http().options('/v1/files/uploadx')).headers.allow).toBe('DELETE, GET, HEAD');
  });

  it('answers OPTIONS on a path it serves with 204 and Allow, and 404 on one it does not', async () => {
    const leads = await stack.http().options('/v1/leads');
    expect([leads.status, leads.headers.allow]).toEqual([204, 'GET, HEAD, POST']);
    const pixel = await stack.http().options('/v1/t/o/some-token');
    expect([pixel.status, pixel.headers.allow]).toEqual([204, 'GET, HEAD']);
    expect((await stack.http().options('/v1/nothing-here')).status).toBe(404);
  });

  it('answers an oversized body with 413', async () => {
    const huge = { ...validLead(), customFields: { blob: 'x'.repeat(2_000_000) } };
    const res = await stack.http().post('/v1/leads').set(tenant.sandbox).send(huge);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, status: 413, message: 'Request body is too large' });
    expect(res.body.errors).toEqual([
      { field: 'body', message: 'Must be at most 1 MB; send many leads as a file import (POST /v1/leads/imports)' },
    ]);
    const partner = await stack.http().post('/v1/partners').set(tenant.sandbox).send(huge);
    expect(partner.body.errors).toEqual([{ field: 'body', message: 'Must be at most 1 MB' }]);
  });

  it('answers a body that is not JSON with 415, naming the type sent (and curl -d form-encoding)', async () => {
    const res = await stack.http().post('/v1/leads').set(tenant.sandbox).set('Content-Type', 'text/plain').send('email=a@b.c');
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({
      success: false,
      status: 415,
      message: 'Content-Type must be application/json',
      errors: [{ field: 'Content-Type', message: 'Must be application/json, not text/plain' }],
    });
    const curl = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('{"email":"a@example.com"}');
    expect(curl.body.errors).toEqual([
      {
        field: 'Content-Type',
        message:
          "Must be application/json, not application/x-www-form-urlencoded (curl -d sends that unless given -H 'Content-Type: application/json')",
      },
    ]);
  });

  it('answers validation failures with 422 and one {field, message} per problem', async () => {
    const res = await stack.http().post('/v1/leads').set(tenant.sandbox).send({ email: 'not-an-email', lastName: '', score: 101 });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Validation failed');
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['email', 'firstName', 'lastName', 'score']);
    for (const e of res.body.errors) expect(e.message).toEqual(expect.any(String));
  });

  it('answers invalid query parameters with 400 and field errors', async () => {
    const res = await stack.http().get('/v1/leads?limit=1000&sort=password:asc').set(tenant.sandbox);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['limit', 'sort']);
    // Said as the caller wrote it: not a number, or a parameter given twice (not "received NaN").
    const words = await stack.http().get('/v1/leads?page=abc').set(tenant.sandbox);
    expect(words.body.errors).toEqual([{ field: 'page', message: 'Must be a number' }]);
    const twice = await stack.http().get('/v1/leads?page=1&page=2').set(tenant.sandbox);
    expect([twice.status, twice.body.errors]).toEqual([400, [{ field: 'page', message: 'Given more than once; give it once' }]]);
  });

  it('names the field an unknown one probably meant, or else the fields the object takes', async () => {
    const res = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send({ email: 'near@example.com', fristName: 'Ada', last_name: 'Lovelace' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'fristName', message: 'Unknown field; did you mean firstName?' },
        { field: 'last_name', message: 'Unknown field; did you mean lastName?' },
      ]),
    );
    const deal = await stack.http().post('/v1/opportunities').set(tenant.sandbox).send({ name: 'Deal', value: 1, stage: 'won' });
    expect(deal.body.errors).toEqual([{ field: 'stage', message: 'Unknown field; did you mean stageId?' }]);
    // Names in other APIs' style: a partner's `name` is two fields, a task's `dueDate` its `dueAt`.
    const partner = await stack.http().post('/v1/partners').set(tenant.sandbox).send({ name: 'Acme', email: 'acme@example.com' });
    expect(partner.body.errors).toEqual(
      expect.arrayContaining([{ field: 'name', message: 'Unknown field; did you mean firstName or lastName?' }]),
    );
    const task = await stack.http().post('/v1/tasks').set(tenant.sandbox).send({ title: 'Call', due_date: '2026-12-05T09:00:00Z' });
    expect(task.body.errors).toEqual([{ field: 'due_date', message: 'Unknown field; did you mean dueAt?' }]);
    // Nested objects too, and a name like none of the fields lists them.
    const form = await stack
      .http()
      .post('/v1/forms')
      .set(tenant.sandbox)
      .send({ name: 'F', fields: [{ name: 'email', type: 'email', label: 'Email', mapsTo: 'email', require: true, colour: 'red' }] });
    expect(form.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'fields.0.require', message: 'Unknown field; did you mean required?' },
        { field: 'fields.0.colour', message: expect.stringMatching(/^Unknown field; the fields here are name, .*label/) },
      ]),
    );
  });

  it('points a PATCH of status to the named actions', async () => {
    const task = (await stack.http().post('/v1/tasks').set(tenant.sandbox).send({ title: 'Call back' }).expect(201)).body.data;
    const res = await stack.http().patch(`/v1/tasks/${task.id}`).set(tenant.sandbox).send({ status: 'completed' });
    expect([res.status, res.body.errors]).toEqual([
      422,
      [
        {
          field: 'status',
          message:
            'Unknown field; the status changes through the named actions (POST /v1/<resource>/{id}/<action>, listed in the API docs)',
        },
      ],
    ]);
  });

  it('refuses a query parameter the endpoint does not take, naming the one it probably meant or the ones it takes', async () => {
    // A typo in a filter must not answer the unfiltered list.
    const typo = await stack.http().get('/v1/leads?stauts=lost&limit=5').set(tenant.sandbox);
    expect(typo.status).toBe(400);
    expect(typo.body).toMatchObject({ success: false, message: 'Invalid query parameters' });
    expect(typo.body.errors).toEqual([{ field: 'stauts', message: 'Unknown query parameter; did you mean status?' }]);
    const unlike = await stack.http().get('/v1/leads?colour=red').set(tenant.sandbox);
    expect(unlike.body.errors).toEqual([
      {
        field: 'colour',
        message: expect.stringMatching(/^Unknown query parameter; this endpoint takes page, limit, .*status.*customFields\.<key>$/),
      },
    ]);
    const wrongName = await stack.http().get('/v1/config/statuses?type=opportunity_stage').set(tenant.sandbox);
    expect(wrongName.status).toBe(400);
    // The end of a parameter's name, from four letters on, names it too.
    expect(wrongName.body.errors[0].message).toBe('Unknown query parameter; did you mean entityType?');
    // A moment under another suffix names a range's two ends.
    const since = await stack.http().get('/v1/leads?created_at=2026-12-01').set(tenant.sandbox);
    expect(since.body.errors).toEqual([
      { field: 'created_at', message: 'Unknown query parameter; did you mean createdFrom or createdTo?' },
    ]);
    const none = await stack.http().get('/v1/usage?verbose=1').set(tenant.sandbox);
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([{ field: 'verbose', message: 'Unknown query parameter; this endpoint takes none' }]);
    // What the document lists is taken, custom field filters included.
    await stack.http().get('/v1/leads?status=new&customFields.plan=pro').set(tenant.sandbox).expect(200);
    await stack.http().get('/v1/config/statuses?entityType=opportunity').set(tenant.sandbox).expect(200);
  });

  it('lets public routes take parameters a link adds (UTM tags on a form post)', async () => {
    const form = (
      await stack
        .http()
        .post('/v1/forms')
        .set(tenant.sandbox)
        .send({ name: 'Newsletter', fields: [{ name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' }] })
        .expect(201)
    ).body.data;
    await stack.http().post(`${form.submitPath}?utm_source=newsletter`).send({ email: 'utm@example.com' }).expect(201);
  });

  it('answers a missing API key with 401 "Invalid or missing API key"', async () => {
    const res = await stack.http().get('/v1/leads');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, status: 401, message: 'Invalid or missing API key' });
  });

  it('puts X-Request-Id on every response and echoes a safe incoming one', async () => {
    const minted = await stack.http().get('/healthz');
    expect(minted.headers['x-request-id']).toMatch(/^req_[a-f0-9]{32}$/);
    const echoed = await stack.http().get('/v1/nope').set('X-Request-Id', 'trace-123');
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    const unsafe = await stack.http().get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(unsafe.headers['x-request-id']).toMatch(/^req_/);
  });

  it('never leaks stack traces or SQL from an unexpected error', async () => {
    const app = express();
    app.use(requestId);
    app.get('/boom', () => {
      throw new Error('SELECT * FROM secrets WHERE password = hunter2');
    });
    app.use(errorHandler);
    const res = await request(app).get('/boom');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ success: false, status: 500, message: 'Internal server error' });
    expect(JSON.stringify(res.body)).not.toMatch(/SELECT|hunter2|at .*\.ts/);
  });

  it('answers health and readiness with the state of the database and Temporal', async () => {
    expect((await stack.http().get('/healthz')).status).toBe(200);
    const ready = await stack.http().get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.data).toEqual({ database: 'ok', temporal: 'ok' });
  });

  it('exposes Prometheus metrics with request latency by route template', async () => {
    await stack.http().get('/v1/leads').set(tenant.sandbox);
    const res = await stack.http().get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/v1\/leads"/);
    expect(res.text).toContain('temporal_workflow_starts_total');
  });

  it('counts a list only up to the cap: total is a lower bound above it, hasNext stays exact', async () => {
    const t = await newTenant(stack.db);
    const first = (
      await stack
        .http()
        .post('/v1/leads')
        .set(t.sandbox)
        .send(validLead({ lastName: 'Counted' }))
    ).body.data;
    await stack.db.query(
      `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, source, status, score, custom_fields, created_by, assigned_to)
       SELECT tenant_id, environment, 'c' || g || '@example.com', 'c' || g || '@example.com', first_name, last_name, source, status, score, custom_fields, created_by, assigned_to
         FROM leads, generate_series(1, $2::int) g WHERE id = $1`,
      [decodeId('lead', first.id), LIST_COUNT_CAP + 49],
    );
    const page = async (q: string) => (await stack.http().get(`/v1/leads?${q}`).set(t.sandbox)).body;
    expect((await page('limit=20')).pagination).toEqual({
      page: 1,
      limit: 20,
      total: LIST_COUNT_CAP,
      totalPages: LIST_COUNT_CAP / 20,
      hasNext: true,
      hasPrev: false,
    });
    // A page reaching past the cap counts one row further, so hasNext still says there is more.
    const atCap = (await page(`limit=100&page=${LIST_COUNT_CAP / 100}`)).pagination;
    expect([atCap.total, atCap.hasNext]).toEqual([LIST_COUNT_CAP + 1, true]);
    // The last, short page ends the list: its total is exact.
    const last = await page(`limit=100&page=${LIST_COUNT_CAP / 100 + 1}`);
    expect([last.data.length, last.pagination.total, last.pagination.hasNext]).toEqual([50, LIST_COUNT_CAP + 50, false]);
    // A filter matching few is counted exactly.
    const few = await page(`q=c1234@`);
    expect(few.pagination).toMatchObject({ total: 1, hasNext: false });
  });

  it("bounds every statement with the pool's statement_timeout: one stuck on a lock answers 503 in the envelope", async () => {
    const timed = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2, statementTimeoutMs: 300 });
    const app = createApp(
      { db: timed, workflows: stack.workflows, webhooks: { allowPrivateTargets: true } },
      { limits: { ipPerMinute: 1_000_000, authFailuresPerMinute: 1_000_000 } },
    );
    const lead = (await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead())).body.data;
    const locker = stack.db.createQueryRunner();
    try {
      expect((await timed.query('SHOW statement_timeout'))[0].statement_timeout).toBe('300ms');
      await request(app).get('/v1/leads?limit=1').set(tenant.sandbox).expect(200); // warms the key cache
      await locker.startTransaction();
      await locker.query('SELECT id FROM leads WHERE id = $1 FOR UPDATE', [decodeId('lead', lead.id)]);
      const res = await request(app).patch(`/v1/leads/${lead.id}`).set(tenant.sandbox).send({ firstName: 'Blocked' });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ success: false, status: 503, message: expect.stringMatching(/took too long/) });
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await locker.rollbackTransaction().catch(() => undefined);
      await locker.release();
      await flushApp(app);
      await timed.destroy();
    }
  });
});
