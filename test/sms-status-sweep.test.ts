import { writeFileSync } from 'node:fs';
import { ActivityFailure, ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import path from 'node:path';
import { decodeId } from '../lib/ids';
import { ensureSmsStatusSweepSchedule, smsStatusSweepScheduleId } from '../lib/temporal/sms-status-sweep-schedule';
import { smsStatusSweepWorkflow, type SmsStatusSweepInput } from '../workflows/sms-status-sweep';
import { outboxOf } from './support/events';
import { FakeTwilio } from './support/fake-twilio';
import { historyToObject } from './support/history';
import { startMailStack } from './support/mail-stack';
import { newTenant, type TestStack, type TestTenant } from './support/stack';
import { twilioCallback } from './support/twilio-callback';

/**
 * The sweep that asks Twilio for the status of SMS whose status callback never came, through the
 * real worker and the real twilio client against a local stand-in of Twilio's API
 * (test/support/fake-twilio.ts). A "lost callback" is simply one never posted; "overdue" is a
 * send time moved back past the sweep's 15 minutes.
 */
const ACCOUNT_SID = 'AC00000000000000000000000000000003';
const AUTH_TOKEN = 'sms-status-sweep-auth-token';
const PUBLIC_BASE_URL = 'https://sms-status-sweep.test';
const account = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, callbackUrl: `${PUBLIC_BASE_URL}/v1/providers/twilio/status` };

let stack: TestStack;
let tenant: TestTenant;
let twilio: FakeTwilio;
let stop: () => Promise<void>;

beforeAll(async () => {
  twilio = await new FakeTwilio({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN }).start();
  ({ stack, tenant, stop } = await startMailStack({
    name: 'sms-status-sweep',
    messaging: {
      twilio: {
        accountSid: ACCOUNT_SID,
        authToken: AUTH_TOKEN,
        from: '+15550003333',
        apiBaseUrl: twilio.url,
        statusCallback: account.callbackUrl,
      },
    },
    appDeps: { twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, publicBaseUrl: PUBLIC_BASE_URL } },
  }));
  await stack.subscribe(tenant); // an event no endpoint subscribes to is not written
});
afterAll(async () => {
  await stop();
  await twilio.stop();
});

const api = () => stack.http();
let numbers = 0;
const newNumber = () => `+4477008${String(process.pid % 100).padStart(2, '0')}${String(++numbers).padStart(3, '0')}`;

interface Sms {
  id: string;
  to: string;
  status: string;
  providerMessageId: string;
  sentAt: string;
  deliveredAt: string | null;
  error: string | null;
  statusCheckedAt: string | null;
  statusCheckError: string | null;
}

const message = async (owner: TestTenant, id: string, key: 'live' | 'sandbox' = 'live'): Promise<Sms> =>
  (await api().get(`/v1/communications/messages/${id}`).set(owner[key]).expect(200)).body.data;

/** An SMS sent through the API and the worker (Twilio accepted it), whose callback never comes. */
async function sendSms(owner: TestTenant = tenant, key: 'live' | 'sandbox' = 'live'): Promise<Sms> {
  const sent = await api()
    .post('/v1/communications/send/sms')
    .set(owner[key])
    .send({ to: newNumber(), body: 'Your code is 1234' })
    .expect(200);
  expect(sent.body.data.status).toBe('sent');
  return message(owner, sent.body.data.id, key);
}

/** Moves the message's send back in time: as if it had been waiting for its callback that long. */
async function sentAgo(sms: { id: string }, interval: string): Promise<void> {
  await stack.db.query(`UPDATE messages SET sent_at = now() - $2::interval WHERE id = $1`, [decodeId('message', sms.id), interval]);
}

/** One pass of the sweep, as its schedule starts it (default windows unless the test says otherwise). */
let runs = 0;
async function sweep(input: SmsStatusSweepInput = {}) {
  const handle = await stack.client.workflow.start(smsStatusSweepWorkflow, {
    taskQueue: stack.taskQueue,
    workflowId: `sms-status-sweep-test-${process.pid}-${++runs}`,
    args: [input],
  });
  return { result: await handle.result(), handle };
}

const checksOf = async (sms: { id: string }): Promise<{ status_checked_at: Date | null; status_check_error: string | null }> =>
  (await stack.db.query(`SELECT status_checked_at, status_check_error FROM messages WHERE id = $1`, [decodeId('message', sms.id)]))[0];
const eventsFor = async (owner: TestTenant, id: string) =>
  (await outboxOf(stack.db, owner, 'live', ['sms.failed', 'sms.delivered'])).filter((e) => e.data.messageId === id).map((e) => e.type);
const callback = (fields: { MessageSid: string; MessageStatus: string; ErrorCode?: string }, id: string) =>
  twilioCallback(api, account, fields, { to: `${account.callbackUrl}?messageId=${id}` });
const outcomeOf = async (res: ReturnType<typeof callback>) => (await res.expect(200)).body.data.outcome;

/** SMS a failed pass left as they were (not asked about, not delivered): the next pass, Twilio healthy, records each delivery once. */
async function untouchedThenDeliveredByNextPass(due: Sms[]): Promise<void> {
  for (const sms of due) {
    expect(await checksOf(sms)).toEqual({ status_checked_at: null, status_check_error: null });
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: null, error: null });
  }
  await sweep();
  for (const sms of due) {
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: expect.any(String) });
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.delivered']);
  }
}

const UNDELIVERED_30003 =
  'Twilio reported the SMS undelivered after accepting it (error 30003: https://www.twilio.com/docs/api/errors/30003)';

describe('the SMS status sweep', () => {
  it('records the delivery of an SMS whose callback was lost (deliveredAt, sms.delivered once); a late callback changes nothing', async () => {
    const sms = await sendSms();
    await sentAgo(sms, '20 minutes');
    twilio.messages.set(sms.providerMessageId, { status: 'delivered' });

    const { result, handle } = await sweep();
    expect(result.delivered).toBeGreaterThanOrEqual(1);
    const delivered = await message(tenant, sms.id);
    expect(delivered).toMatchObject({ status: 'sent', error: null, deliveredAt: expect.any(String), sentAt: expect.any(String) });
    expect(twilio.fetchesOf(sms.providerMessageId)).toHaveLength(1);
    expect(twilio.fetchesOf(sms.providerMessageId)[0].path).toBe(
      `/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${sms.providerMessageId}.json`,
    );
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.delivered']);

    // Twilio's callback, arriving after all, and a second pass: neither reports it again.
    expect(await outcomeOf(callback({ MessageSid: sms.providerMessageId, MessageStatus: 'delivered' }, sms.id))).toBe('unchanged');
    expect(await outcomeOf(callback({ MessageSid: sms.providerMessageId, MessageStatus: 'failed', ErrorCode: '30008' }, sms.id))).toBe(
      'unchanged',
    );
    await sweep();
    expect(twilio.fetchesOf(sms.providerMessageId)).toHaveLength(1); // delivered: no longer due
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: delivered.deliveredAt });
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.delivered']);

    if (process.env.RECORD_HISTORIES) {
      const history = await handle.fetchHistory();
      writeFileSync(path.join(__dirname, 'histories', 'sms-status-sweep.json'), JSON.stringify(historyToObject(history), null, 1));
    }
  });

  it('fails an SMS Twilio reports undelivered with the reason its callback would give, and keeps sentAt', async () => {
    const sms = await sendSms();
    await sentAgo(sms, '30 minutes');
    twilio.messages.set(sms.providerMessageId, { status: 'undelivered', errorCode: 30003 });

    expect((await sweep()).result.failed).toBeGreaterThanOrEqual(1);
    expect(await message(tenant, sms.id)).toMatchObject({
      status: 'failed',
      error: UNDELIVERED_30003,
      deliveredAt: null,
      sentAt: expect.any(String),
    });
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.failed']);
    expect(await outcomeOf(callback({ MessageSid: sms.providerMessageId, MessageStatus: 'delivered' }, sms.id))).toBe('unchanged');
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'failed', deliveredAt: null });
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.failed']);
  });

  it('leaves alone an SMS whose callback came first, even late: the first final status wins', async () => {
    const sms = await sendSms();
    expect(await outcomeOf(callback({ MessageSid: sms.providerMessageId, MessageStatus: 'undelivered', ErrorCode: '30003' }, sms.id))).toBe(
      'failed',
    );
    await sentAgo(sms, '1 hour');
    twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
    await sweep();
    expect(twilio.fetchesOf(sms.providerMessageId)).toEqual([]);
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'failed', error: UNDELIVERED_30003, deliveredAt: null });
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.failed']);
  });

  it('reports once when a callback and the sweep race with different final statuses', async () => {
    for (let i = 0; i < 3; i++) {
      const sms = await sendSms();
      await sentAgo(sms, '20 minutes');
      twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
      const [outcome] = await Promise.all([
        outcomeOf(callback({ MessageSid: sms.providerMessageId, MessageStatus: 'undelivered', ErrorCode: '30003' }, sms.id)),
        sweep(),
      ]);
      const events = await eventsFor(tenant, sms.id);
      expect(events).toEqual([outcome === 'failed' ? 'sms.failed' : 'sms.delivered']);
      const stored = await message(tenant, sms.id);
      expect(outcome === 'failed' ? [stored.status, stored.deliveredAt] : [stored.status, typeof stored.deliveredAt]).toEqual(
        outcome === 'failed' ? ['failed', null] : ['sent', 'string'],
      );
    }
  });

  it('leaves an SMS Twilio answered 500 for the next pass, which records it', async () => {
    const sms = await sendSms();
    await sentAgo(sms, '20 minutes');
    twilio.messages.set(sms.providerMessageId, { httpStatus: 500 });
    expect((await sweep()).result.deferred).toBeGreaterThanOrEqual(1);
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: null, error: null });
    expect(await checksOf(sms)).toEqual({ status_checked_at: null, status_check_error: null });

    twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
    await sweep();
    expect(twilio.fetchesOf(sms.providerMessageId)).toHaveLength(2);
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: expect.any(String) });
    expect(await eventsFor(tenant, sms.id)).toEqual(['sms.delivered']);
  });

  it('stops checking an SMS Twilio has no record of (404), saying why', async () => {
    const sms = await sendSms();
    await sentAgo(sms, '20 minutes');
    twilio.messages.set(sms.providerMessageId, { httpStatus: 404 });
    expect((await sweep()).result.stopped).toBeGreaterThanOrEqual(1);
    const checks = await checksOf(sms);
    expect(checks.status_checked_at).toBeInstanceOf(Date);
    expect(checks.status_check_error).toMatch(/^Twilio has no status for this SMS \(HTTP 404, 20404: .*\); no longer checked$/);
    // The message says so too.
    expect(await message(tenant, sms.id)).toMatchObject({
      statusCheckedAt: checks.status_checked_at?.toISOString(),
      statusCheckError: checks.status_check_error,
    });

    twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
    await sweep({ recheckAfterMs: 0 });
    expect(twilio.fetchesOf(sms.providerMessageId)).toHaveLength(1);
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: null, error: null });
    // Its callback still counts: only the sweep stopped asking.
    expect(await outcomeOf(callback({ MessageSid: sms.providerMessageId, MessageStatus: 'delivered' }, sms.id))).toBe('delivered');
  });

  it('ends a pass after three transient errors, recording nothing; the next pass, Twilio healthy again, records every SMS', async () => {
    const due: Sms[] = [];
    for (let i = 0; i < 5; i++) {
      const sms = await sendSms();
      await sentAgo(sms, '20 minutes');
      twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
      due.push(sms);
    }
    const before = twilio.requests.length;
    twilio.unavailable = true;
    let result;
    try {
      ({ result } = await sweep());
    } finally {
      twilio.unavailable = false;
    }
    // Any SMS due (earlier files' too) answers 500 now: three asks, then the rest waits for the next pass.
    expect(result).toEqual({ checked: 0, delivered: 0, failed: 0, unchanged: 0, stopped: 0, deferred: 3 });
    expect(twilio.requests.slice(before).map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
    await untouchedThenDeliveredByNextPass(due);
  });

  it('fails the pass for an operator to see, marking no SMS, when Twilio refuses the auth token (401); fixed, the next pass records them', async () => {
    const due = [await sendSms(), await sendSms()];
    for (const sms of due) {
      await sentAgo(sms, '20 minutes');
      twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
    }
    const before = twilio.requests.length;
    // The token rotated in Twilio's console, not in TWILIO_AUTH_TOKEN: Twilio answers 401 (error 20003) to every request.
    twilio.authToken = 'rotated-in-the-twilio-console';
    let failure: unknown;
    try {
      failure = await sweep().then(
        () => null,
        (err: unknown) => err,
      );
    } finally {
      twilio.authToken = AUTH_TOKEN;
    }
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    const activity = (failure as WorkflowFailedError).cause;
    expect(activity).toBeInstanceOf(ActivityFailure);
    const cause = (activity as ActivityFailure).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({
      type: 'TwilioUnauthorized',
      nonRetryable: true,
      message: expect.stringMatching(/^Twilio refused TWILIO_ACCOUNT_SID \/ TWILIO_AUTH_TOKEN \(HTTP 401, 20003: .*Authenticate/),
    });
    // The first refusal ends the pass, and Temporal does not retry it: one request, whichever SMS it asked about.
    expect(twilio.requests.slice(before)).toHaveLength(1);
    await untouchedThenDeliveredByNextPass(due);
  });

  it('asks about a non-final status again only an hour later', async () => {
    const sms = await sendSms();
    await sentAgo(sms, '20 minutes');
    twilio.messages.set(sms.providerMessageId, { status: 'sent' });
    await sweep();
    expect((await checksOf(sms)).status_checked_at).toBeInstanceOf(Date);
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', deliveredAt: null });
    await sweep();
    expect(twilio.fetchesOf(sms.providerMessageId)).toHaveLength(1);

    await stack.db.query(`UPDATE messages SET status_checked_at = now() - interval '61 minutes' WHERE id = $1`, [
      decodeId('message', sms.id),
    ]);
    twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
    await sweep();
    expect(twilio.fetchesOf(sms.providerMessageId)).toHaveLength(2);
    expect(await message(tenant, sms.id)).toMatchObject({ deliveredAt: expect.any(String) });
  });

  it('asks only about live SMS sent 15 minutes to 72 hours ago: not a recent one, an old one, an email or a sandbox SMS', async () => {
    const [recent, old, due] = [await sendSms(), await sendSms(), await sendSms()];
    await sentAgo(recent, '5 minutes');
    await sentAgo(old, '73 hours');
    await sentAgo(due, '16 minutes');
    const sandbox = await sendSms(tenant, 'sandbox');
    expect(sandbox.providerMessageId).toMatch(/^capture-/);
    await sentAgo(sandbox, '1 hour');
    const email = (
      await api()
        .post('/v1/communications/send/email')
        .set(tenant.live)
        .send({ to: 'someone@example.com', subject: 'Hi', body: 'Hello' })
        .expect(200)
    ).body.data;
    await sentAgo(email, '1 hour');
    for (const sms of [recent, old, due]) twilio.messages.set(sms.providerMessageId, { status: 'delivered' });
    const before = twilio.requests.length;

    await sweep();
    const fetched = twilio.requests.slice(before).filter((r) => r.method === 'GET');
    expect(fetched.map((r) => r.path)).toEqual([`/2010-04-01/Accounts/${ACCOUNT_SID}/Messages/${due.providerMessageId}.json`]);
    expect(await message(tenant, recent.id)).toMatchObject({ deliveredAt: null });
    expect(await message(tenant, old.id)).toMatchObject({ deliveredAt: null });
    expect(await message(tenant, due.id)).toMatchObject({ deliveredAt: expect.any(String) });
    expect(await checksOf(email)).toEqual({ status_checked_at: null, status_check_error: null });
    expect(await checksOf(sandbox)).toEqual({ status_checked_at: null, status_check_error: null });
  });

  it("writes each SMS's status in its own tenant: events go to that tenant's outbox only", async () => {
    const other = await newTenant(stack.db);
    await stack.subscribe(other);
    const [mine, theirs] = [await sendSms(tenant), await sendSms(other)];
    await sentAgo(mine, '20 minutes');
    await sentAgo(theirs, '20 minutes');
    twilio.messages.set(mine.providerMessageId, { status: 'delivered' });
    twilio.messages.set(theirs.providerMessageId, { status: 'undelivered', errorCode: 30003 });

    await sweep();
    expect(await message(tenant, mine.id)).toMatchObject({ status: 'sent', deliveredAt: expect.any(String) });
    expect(await message(other, theirs.id)).toMatchObject({ status: 'failed', error: UNDELIVERED_30003 });
    expect(await eventsFor(tenant, mine.id)).toEqual(['sms.delivered']);
    expect(await eventsFor(other, theirs.id)).toEqual(['sms.failed']);
    expect(await eventsFor(tenant, theirs.id)).toEqual([]);
    expect(await eventsFor(other, mine.id)).toEqual([]);
    // Each message is its own tenant's: the other's key does not reach it.
    await api().get(`/v1/communications/messages/${theirs.id}`).set(tenant.live).expect(404);
  });

  it('exists as a 10-minute schedule only where Twilio is configured', async () => {
    const scheduleId = smsStatusSweepScheduleId(stack.taskQueue);
    const first = await ensureSmsStatusSweepSchedule(stack.client, stack.taskQueue, { twilioConfigured: true });
    const again = await ensureSmsStatusSweepSchedule(stack.client, stack.taskQueue, { twilioConfigured: true });
    expect([first, again]).toMatchObject([{ created: true }, { created: false, updated: false }]);
    const description = await stack.client.schedule.getHandle(scheduleId).describe();
    expect(description.spec.intervals?.[0].every).toBe(600_000);
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'smsStatusSweepWorkflow', taskQueue: stack.taskQueue });

    expect(await ensureSmsStatusSweepSchedule(stack.client, stack.taskQueue, { twilioConfigured: false })).toEqual({
      scheduleId,
      removed: true,
    });
    expect(await ensureSmsStatusSweepSchedule(stack.client, stack.taskQueue, { twilioConfigured: false })).toEqual({
      scheduleId,
      removed: false,
    });
  });
});
