import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

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
});
