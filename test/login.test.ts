import request from 'supertest';
import { createApp } from '../api/app';
import { initializeDatabase } from '../db/data-source';
import { LOGIN_BACKOFF_AFTER_FAILURES } from '../domain/login-throttle';
import { LOGIN_BLOCKED_MESSAGE, LOGIN_FAILED_MESSAGE } from '../domain/login';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

const IP_FAILURE_LIMIT = 20;
let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack({ app: { trustProxy: 1, limits: { authFailuresPerMinute: IP_FAILURE_LIMIT } } });
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

let ips = 0;
/** Each test logs in from addresses of its own, so one test's failures never block another's. */
const freshIp = () => `198.51.${Math.floor(Math.random() * 200) + 1}.${(++ips % 250) + 1}`;
const email = (label: string) => `${label}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
const login = (ip: string, body: Record<string, unknown>, app = stack.app) =>
  request(app).post('/v1/auth/login').set('X-Forwarded-For', ip).send(body);
const createUser = async (address: string, password: string, t = tenant) => {
  const res = await stack
    .http()
    .post('/v1/users')
    .set(t.live)
    .send({ email: address, password, firstName: 'L', lastName: 'G', roleId: 'viewer' });
  expect(res.status).toBe(201);
  return res.body.data as { id: string };
};
/** The per-IP failure count is a one-minute window: start a burst well inside one. */
const atMinuteSafe = async () => {
  if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
};

describe('login resists guessing', () => {
  it('checks the per-IP block before any password work: a blocked IP gets 429 even with the right password', async () => {
    const address = email('ipblock');
    await createUser(address, 'the right one');
    const ip = freshIp();
    await atMinuteSafe();
    // Failures spread over many unknown emails: no account backoff, only the IP's count.
    for (let i = 0; i <= IP_FAILURE_LIMIT; i++) await login(ip, { email: email('guess'), password: 'wrong guess' });
    const right = await login(ip, { email: address, password: 'the right one' });
    expect([right.status, right.body.message]).toEqual([429, LOGIN_BLOCKED_MESSAGE]);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(right.body.data?.accessToken).toBeUndefined();
    expect((await login(freshIp(), { email: address, password: 'the right one' })).status).toBe(200);
  });

  it('backs an account off after repeated failures from any IP, in every API process, then lets the right password in', async () => {
    const address = email('backoff');
    await createUser(address, 'the right one');
    for (let i = 0; i < LOGIN_BACKOFF_AFTER_FAILURES; i++) {
      const res = await login(freshIp(), { email: address, password: `guess ${i}` });
      expect(res.status).toBe(401);
    }
    const right = await login(freshIp(), { email: address, password: 'the right one' });
    expect([right.status, right.body.message, right.headers['retry-after']]).toEqual([429, LOGIN_BLOCKED_MESSAGE, '1']);
    // The count lives in PostgreSQL: another API process refuses the account as well.
    const otherDb = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
    try {
      const other = createApp({ db: otherDb, workflows: { client: stack.client } as never }, { trustProxy: 1 });
      expect((await login(freshIp(), { email: address, password: 'the right one' }, other)).status).toBe(429);
    } finally {
      await otherDb.destroy();
    }
    await new Promise((r) => setTimeout(r, 1100));
    expect((await login(freshIp(), { email: address, password: 'the right one' })).status).toBe(200);
    // A success clears the count: the next failure is an ordinary 401.
    expect((await login(freshIp(), { email: address, password: 'wrong again' })).status).toBe(401);
    expect((await login(freshIp(), { email: address, password: 'the right one' })).status).toBe(200);
  });

  it('doubles the delay with every further failure', async () => {
    const address = email('doubling');
    for (let i = 0; i < LOGIN_BACKOFF_AFTER_FAILURES; i++) await login(freshIp(), { email: address, password: 'x' });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await login(freshIp(), { email: address, password: 'x' })).status).toBe(401); // the 6th failure
    const blocked = await login(freshIp(), { email: address, password: 'x' });
    expect([blocked.status, blocked.headers['retry-after']]).toEqual([429, '2']);
  });

  it('answers every failure alike: unknown email, email in several tenants, wrong password, deactivated user, bad tenantId', async () => {
    const shared = email('shared');
    const other = await newTenant(stack.db);
    await createUser(shared, 'same password');
    await createUser(shared, 'same password', other);
    const wrong = email('wrong');
    await createUser(wrong, 'the right one');
    const gone = email('gone');
    const goneUser = await createUser(gone, 'the right one');
    await stack.http().delete(`/v1/users/${goneUser.id}`).set(tenant.live);
    const cases: Record<string, Record<string, unknown>> = {
      'unknown email': { email: email('nobody'), password: 'whatever pw' },
      'email in several tenants': { email: shared, password: 'same password' },
      'wrong password': { email: wrong, password: 'not the right one' },
      'deactivated user': { email: gone, password: 'the right one' },
      'undecodable tenantId': { email: wrong, password: 'the right one', tenantId: 'garbage' },
    };
    for (const [label, body] of Object.entries(cases)) {
      const res = await login(freshIp(), body);
      expect([label, res.status, res.body.message, res.body.errors]).toEqual([label, 401, LOGIN_FAILED_MESSAGE, undefined]);
    }
    const named = await login(freshIp(), { email: shared, password: 'same password', tenantId: other.id });
    expect([named.status, named.body.data.tenantId]).toEqual([200, other.id]);
  });
});
