import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * Odd input that once reached the database or a parser unchecked and answered 500. Each was found
 * by the OpenAPI fuzzer (test/reliability/schemathesis.test.ts); a client error must be a 4xx.
 */
let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

describe('odd input is a client error, never a 500', () => {
  it('answers a multipart upload without a boundary with 400', async () => {
    const res = await stack.http().post('/v1/files/upload').set(tenant.sandbox).set('Content-Type', 'multipart/form-data').send('no parts');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, message: 'Malformed multipart body' });
  });

  // PostgreSQL stores no U+0000 in text or jsonb.
  it('refuses a NUL character in a JSON body string with 422 on that field', async () => {
    const res = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ firstName: 'Ada\u0000' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'firstName', message: expect.stringMatching(/NUL/) }]);
  });

  it('refuses a NUL character nested in a JSON body (arrays, objects) with 422', async () => {
    const res = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ tags: ['ok', 'bad\u0000'] }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'tags.1', message: expect.stringMatching(/NUL/) }]);
  });

  it('refuses a NUL character in a query parameter with 400', async () => {
    const res = await stack.http().get('/v1/leads?q=%00').set(tenant.sandbox);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'q', message: expect.stringMatching(/NUL/) }]);
  });

  it('refuses a date-time whose offset PostgreSQL cannot hold with 400', async () => {
    const res = await stack.http().get('/v1/audit-logs?createdTo=1767-12-31T18%3A53%3A36%2B17%3A21').set(tenant.sandbox);
    expect(res.status).toBe(400);
  });

  it('refuses year 0000 in a date with 422', async () => {
    const res = await stack.http().post('/v1/opportunities').set(tenant.sandbox).send({ name: 'Deal', expectedCloseDate: '0000-01-01' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'expectedCloseDate', message: 'Year must be 0001 or later' }]);
  });

  // The score column is an integer: a fraction reached PostgreSQL and failed there.
  it('refuses a fractional lead score with 422 in a body and 400 in a filter', async () => {
    const created = await stack
      .http()
      .post('/v1/leads')
      .set(tenant.sandbox)
      .send(validLead({ score: 1.5 }));
    expect([created.status, created.body.errors?.[0]?.field]).toEqual([422, 'score']);
    const listed = await stack.http().get('/v1/leads?scoreMin=1.9').set(tenant.sandbox);
    expect([listed.status, listed.body.errors?.[0]?.field]).toEqual([400, 'scoreMin']);
  });

  // numeric(14,2) holds values below 10^12.
  it('refuses an opportunity value the money column cannot hold with 422', async () => {
    for (const value of [1e12, 999_999_999_999.9999]) {
      const res = await stack.http().post('/v1/opportunities').set(tenant.sandbox).send({ name: 'Deal', value });
      expect([res.status, res.body.errors?.[0]?.field]).toEqual([422, 'value']);
    }
  });

  it('answers a page far past the end with an empty page, not a 500', async () => {
    const res = await stack.http().get('/v1/audit-logs?page=67553221167345&limit=2').set(tenant.sandbox);
    expect([res.status, res.body.data]).toEqual([200, []]);
  });
});
