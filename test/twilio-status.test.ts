import request from 'supertest';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks';
import { messagingSettingsFromConfig } from '../activities/messaging/settings';
import { Message } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { encodeId } from '../lib/ids';
import { createApp, flushApp } from '../api/app';
import { loadConfig } from '../lib/config';
import { FakeTwilio } from './support/fake-twilio';
import { twilioCallback, type Signing } from './support/twilio-callback';
import { startMailStack } from './support/mail-stack';
import { outboxOf } from './support/events';
import { newTenant, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Twilio's status callbacks through the real app: SMS sent by the real twilio client to a local
 * stand-in, callbacks signed as Twilio signs them (HMAC-SHA1 of URL and fields under the auth token).
 */
const ACCOUNT_SID = 'AC00000000000000000000000000000002';
const AUTH_TOKEN = 'twilio-status-auth-token';
const PUBLIC_BASE_URL = 'https://twilio-status.test';
const CALLBACK_URL = `${PUBLIC_BASE_URL}/v1/providers/twilio/status`;

let stack: TestStack;
let tenant: TestTenant;
let twilio: FakeTwilio;
let receiver: WebhookReceiver;
let stop: () => Promise<void>;
/** Runs inside the send, after Twilio accepted the SMS and before its SID is stored: where Twilio's fastest callbacks land. */
let onAccepted: ((message: Message) => Promise<void>) | undefined;

beforeAll(async () => {
  twilio = await new FakeTwilio({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN }).start();
  ({ stack, tenant, stop } = await startMailStack({
    name: 'twilio-status',
    messaging: {
      twilio: {
        accountSid: ACCOUNT_SID,
        authToken: AUTH_TOKEN,
        from: '+15550002222',
        apiBaseUrl: twilio.url,
        statusCallback: CALLBACK_URL,
      },
      afterProviderAccept: (message) => onAccepted?.(message),
    },
    appDeps: { twilio: { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, publicBaseUrl: PUBLIC_BASE_URL } },
  }));
  receiver = await new WebhookReceiver().start();
  await registerEndpoint(stack.app, tenant, receiver, '/hook', ['sms.failed', 'sms.delivered']);
});
afterAll(async () => {
  await stop();
  await twilio.stop();
  await receiver.stop();
});

const api = () => stack.http();
let numbers = 0;

const newNumber = () => `+4477009${String(process.pid % 100).padStart(2, '0')}${String(++numbers).padStart(3, '0')}`;

/** A live SMS through the API, sent by the worker; its message record (with Twilio's SID) once sent. */
async function sendSms(owner: TestTenant = tenant, leadId?: string) {
  const sent = await api()
    .post('/v1/communications/send/sms')
    .set(owner.live)
    .send({ to: newNumber(), body: 'Your code is 1234', leadId })
    .expect(200);
  expect(sent.body.data.status).toBe('sent');
  return message(owner, sent.body.data.id);
}
const message = async (owner: TestTenant, id: string) =>
  (await api().get(`/v1/communications/messages/${id}`).set(owner.live).expect(200)).body.data;

const account = { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, callbackUrl: CALLBACK_URL };
/** A status callback as Twilio posts it, signed as Twilio would unless `Signing` says otherwise. */
const callback = (fields: Parameters<typeof twilioCallback>[2], signing?: Signing) => twilioCallback(api, account, fields, signing);
const outcomeOf = async (res: ReturnType<typeof callback>) => (await res.expect(200)).body.data.outcome;
const eventsFor = async (owner: TestTenant, messageId: string, types = ['sms.failed', 'sms.delivered']) =>
  (await outboxOf(stack.db, owner, 'live', types)).filter((e) => e.data.messageId === messageId);
/** The StatusCallback the SMS to `to` was created with, and the SID Twilio answered. */
const twilioRequestTo = (to: string) => {
  const request = twilio.requests.find((r) => r.form.get('To') === to);
  return { statusCallback: request?.form.get('StatusCallback') ?? '', sid: request?.sid ?? '' };
};

/**
 * Sends an SMS whose status Twilio reports while the send is still between Twilio's answer and
 * storing it: the message is queued, its SID not stored. Returns the callback's outcome, the
 * message as the callback found it, and the message once the send finished.
 */
async function sendWithEarlyCallback(owner: TestTenant, status: { MessageStatus: string; ErrorCode?: string }) {
  const early: { outcome?: string; seen?: { status: string; provider_message_id: string | null }; error?: unknown } = {};
  onAccepted = async (accepted) => {
    try {
      const { statusCallback, sid } = twilioRequestTo(accepted.to);
      [early.seen] = await stack.db.query('SELECT status, provider_message_id FROM messages WHERE id = $1', [accepted.id]);
      early.outcome = await outcomeOf(callback({ MessageSid: sid, ...status }, { to: statusCallback }));
    } catch (err) {
      early.error = err;
    }
  };
  try {
    const to = newNumber();
    const sent = await api().post('/v1/communications/send/sms').set(owner.live).send({ to, body: 'Your code is 1234' }).expect(200);
    return { early, sid: twilioRequestTo(to).sid, sms: await message(owner, sent.body.data.id) };
  } finally {
    onAccepted = undefined;
  }
}
const received = (type: string, messageId: string) =>
  receiver.for('/hook').filter((w) => w.body.type === type && w.body.data.messageId === messageId);

describe('Twilio status callbacks', () => {
  it("sends each SMS with StatusCallback at PUBLIC_BASE_URL's callback path, as config builds it", async () => {
    const sms = await sendSms();
    // Our message ID rides in the URL (signed by Twilio with the rest), so a callback never depends on the SID being stored yet.
    expect(twilioRequestTo(sms.to).statusCallback).toBe(`${CALLBACK_URL}?messageId=${sms.id}`);

    const twilioEnv = { TWILIO_ACCOUNT_SID: ACCOUNT_SID, TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_FROM: '+15550002222' };
    const withBase = messagingSettingsFromConfig(loadConfig({ ...twilioEnv, PUBLIC_BASE_URL: 'https://api.example.com/' }));
    expect(withBase.twilio?.statusCallback).toBe('https://api.example.com/v1/providers/twilio/status');
    expect(messagingSettingsFromConfig(loadConfig(twilioEnv)).twilio?.statusCallback).toBeUndefined();
  });

  it('fails a sent SMS that Twilio reports undelivered, naming status and error code, with sms.failed once however often Twilio repeats it', async () => {
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
    const sms = await sendSms(tenant, lead.id);
    const sid = sms.providerMessageId as string;
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'sent' }))).toBe('unchanged');
    expect((await message(tenant, sms.id)).status).toBe('sent');

    const undelivered = () => outcomeOf(callback({ MessageSid: sid, MessageStatus: 'undelivered', ErrorCode: '30003' }));
    const outcomes = [...(await Promise.all([undelivered(), undelivered()])), await undelivered()];
    expect(outcomes.sort()).toEqual(['failed', 'unchanged', 'unchanged']);
    const failed = await message(tenant, sms.id);
    expect(failed).toMatchObject({ status: 'failed', sentAt: sms.sentAt, deliveredAt: null });
    expect(failed.error).toBe(
      'Twilio reported the SMS undelivered after accepting it (error 30003: https://www.twilio.com/docs/api/errors/30003)',
    );
    // A final status after the outcome is known changes nothing, in either order.
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'failed', ErrorCode: '30008' }))).toBe('unchanged');
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'delivered' }))).toBe('unchanged');

    await waitUntil(async () => received('sms.failed', sms.id).length > 0, 'sms.failed at the receiver');
    expect(received('sms.failed', sms.id).map((w) => w.body.data)).toEqual([
      { messageId: sms.id, to: sms.to, leadId: lead.id, campaignId: null, reason: failed.error, failedAt: expect.any(String) },
    ]);
    expect((await eventsFor(tenant, sms.id)).map((e) => e.type)).toEqual(['sms.failed']);
    expect(await message(tenant, sms.id)).toMatchObject({ status: 'failed', error: failed.error, deliveredAt: null });
  });

  it('fails a sent SMS that Twilio reports canceled: it will never be sent', async () => {
    const sms = await sendSms();
    expect(await outcomeOf(callback({ MessageSid: sms.providerMessageId as string, MessageStatus: 'canceled' }))).toBe('failed');
    expect(await message(tenant, sms.id)).toMatchObject({
      status: 'failed',
      error: 'Twilio reported the SMS canceled after accepting it (no error code given)',
      deliveredAt: null,
    });
  });

  it('records a delivered SMS once (deliveredAt, sms.delivered); a late sent or failed after it changes nothing', async () => {
    const sms = await sendSms();
    const sid = sms.providerMessageId as string;
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'delivered' }))).toBe('delivered');
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'delivered' }))).toBe('unchanged');
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'sent' }))).toBe('unchanged');
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'failed', ErrorCode: '30008' }))).toBe('unchanged');

    const delivered = await message(tenant, sms.id);
    expect(delivered).toMatchObject({ status: 'sent', error: null, deliveredAt: expect.any(String) });
    await waitUntil(async () => received('sms.delivered', sms.id).length > 0, 'sms.delivered at the receiver');
    expect(received('sms.delivered', sms.id).map((w) => w.body.data)).toEqual([
      { messageId: sms.id, leadId: null, campaignId: null, occurredAt: delivered.deliveredAt },
    ]);
    expect((await eventsFor(tenant, sms.id)).map((e) => e.type)).toEqual(['sms.delivered']);
  });

  it('refuses a missing or wrong signature, a tampered field and another account with 403 in the envelope, changing nothing', async () => {
    const sms = await sendSms();
    const sid = sms.providerMessageId as string;
    const failed = { MessageSid: sid, MessageStatus: 'failed', ErrorCode: '30008' };
    const refusals = [
      [callback(failed, { signature: null }), /^X-Twilio-Signature is missing/],
      [callback(failed, { token: 'another-accounts-token' }), /^X-Twilio-Signature does not match/],
      [callback(failed, { url: 'https://elsewhere.test/v1/providers/twilio/status' }), /^X-Twilio-Signature does not match/],
      // Signed for "delivered", posted as "failed".
      [
        callback(failed, { signature: getExpectedTwilioSignature(AUTH_TOKEN, CALLBACK_URL, { ...failed, MessageStatus: 'delivered' }) }),
        /^X-Twilio-Signature does not match/,
      ],
      [callback({ ...failed, AccountSid: 'AC0000000000000000000000000000000f' }), /^AccountSid AC0+f is not this service's Twilio account/],
    ] as const;
    for (const [res, message] of refusals) {
      const refused = await res;
      expect([refused.status, refused.body.success, refused.body.status]).toEqual([403, false, 403]);
      expect(refused.body.message).toMatch(message);
    }
    // Twilio posts a form; the same fields as JSON are refused whatever their signature.
    const json = await api()
      .post('/v1/providers/twilio/status')
      .set('X-Twilio-Signature', getExpectedTwilioSignature(AUTH_TOKEN, CALLBACK_URL, { ...failed, AccountSid: ACCOUNT_SID }))
      .send({ ...failed, AccountSid: ACCOUNT_SID });
    expect([json.status, json.body.message]).toEqual([415, expect.stringContaining('application/x-www-form-urlencoded')]);

    expect(await message(tenant, sms.id)).toMatchObject({ status: 'sent', error: null, deliveredAt: null });
    expect(await eventsFor(tenant, sms.id)).toEqual([]);
  });

  it("acts on the SMS with the SID only: another tenant's SMS is untouched until its own SID reports", async () => {
    const other = await newTenant(stack.db);
    await stack.subscribe(other);
    const [mine, theirs] = [await sendSms(tenant), await sendSms(other)];
    expect(await outcomeOf(callback({ MessageSid: mine.providerMessageId, MessageStatus: 'undelivered', ErrorCode: '30005' }))).toBe(
      'failed',
    );
    expect(await message(other, theirs.id)).toMatchObject({ status: 'sent', error: null, deliveredAt: null });
    expect(await eventsFor(other, theirs.id)).toEqual([]);

    expect(await outcomeOf(callback({ MessageSid: theirs.providerMessageId, MessageStatus: 'delivered' }))).toBe('delivered');
    expect(await message(other, theirs.id)).toMatchObject({ status: 'sent', deliveredAt: expect.any(String) });
    expect(await message(tenant, mine.id)).toMatchObject({ status: 'failed', deliveredAt: null });
    expect((await eventsFor(other, theirs.id)).map((e) => e.type)).toEqual(['sms.delivered']);
  });

  it('fails an SMS whose undelivered status arrives before the send stored its SID: sms.sent, then sms.failed, each once', async () => {
    const owner = await newTenant(stack.db);
    await stack.subscribe(owner);
    const { early, sid, sms } = await sendWithEarlyCallback(owner, { MessageStatus: 'undelivered', ErrorCode: '30003' });
    expect(early).toEqual({ seen: { status: 'queued', provider_message_id: null }, outcome: 'failed' });
    expect(sms).toMatchObject({
      status: 'failed',
      providerMessageId: sid,
      sentAt: expect.any(String),
      deliveredAt: null,
      error: 'Twilio reported the SMS undelivered after accepting it (error 30003: https://www.twilio.com/docs/api/errors/30003)',
    });
    expect((await eventsFor(owner, sms.id, ['sms.sent', 'sms.failed', 'sms.delivered'])).map((e) => e.type)).toEqual([
      'sms.sent',
      'sms.failed',
    ]);
    // Twilio's repeat, now that the SID is stored, changes nothing.
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'failed' }, { to: `${CALLBACK_URL}?messageId=${sms.id}` }))).toBe(
      'unchanged',
    );
  });

  it('records a delivery reported before the send stored its SID, after its sms.sent', async () => {
    const owner = await newTenant(stack.db);
    await stack.subscribe(owner);
    const { early, sid, sms } = await sendWithEarlyCallback(owner, { MessageStatus: 'delivered' });
    expect(early).toEqual({ seen: { status: 'queued', provider_message_id: null }, outcome: 'delivered' });
    expect(sms).toMatchObject({ status: 'sent', providerMessageId: sid, error: null, deliveredAt: expect.any(String) });
    expect((await eventsFor(owner, sms.id, ['sms.sent', 'sms.failed', 'sms.delivered'])).map((e) => e.type)).toEqual([
      'sms.sent',
      'sms.delivered',
    ]);
  });

  it("acts on the message its signed URL names only with that message's SID, never on another tenant's", async () => {
    const other = await newTenant(stack.db);
    const [mine, theirs] = [await sendSms(tenant), await sendSms(other)];
    const mineUrl = `${CALLBACK_URL}?messageId=${mine.id}`;
    // Signed for my message's URL, posted to theirs: the signature covers the ID.
    const moved = await callback(
      { MessageSid: theirs.providerMessageId, MessageStatus: 'failed', ErrorCode: '30008' },
      { to: `${CALLBACK_URL}?messageId=${theirs.id}`, url: mineUrl },
    );
    expect([moved.status, moved.body.message]).toEqual([403, expect.stringMatching(/^X-Twilio-Signature does not match/)]);
    // My message's URL with their SID: my message has another SID, so nothing changes anywhere.
    expect(
      await outcomeOf(callback({ MessageSid: theirs.providerMessageId, MessageStatus: 'failed', ErrorCode: '30008' }, { to: mineUrl })),
    ).toBe('unchanged');
    expect(await message(tenant, mine.id)).toMatchObject({ status: 'sent', error: null, deliveredAt: null });
    expect(await message(other, theirs.id)).toMatchObject({ status: 'sent', error: null, deliveredAt: null });
    // An ID of no SMS (an email's, or none at all) names no message; an ID that does not decode falls back to the SID.
    const email = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: 'someone@example.com', subject: 'Hi', body: 'Hello' })
      .expect(200);
    const viaEmailId = callback(
      { MessageSid: mine.providerMessageId, MessageStatus: 'delivered' },
      { to: `${CALLBACK_URL}?messageId=${email.body.data.id}` },
    );
    expect(await outcomeOf(viaEmailId)).toBe('unknown_message');
    const garbled = callback(
      { MessageSid: mine.providerMessageId, MessageStatus: 'delivered' },
      { to: `${CALLBACK_URL}?messageId=msgNotAnIdAtAll0` },
    );
    expect(await outcomeOf(garbled)).toBe('delivered');
    expect(await message(tenant, mine.id)).toMatchObject({ status: 'sent', deliveredAt: expect.any(String) });
  });

  it('finds an SMS marked sent without its SID (a send that stopped after Twilio answered) by its URL, and stores the SID', async () => {
    // What a retried send leaves when it finds the provider-attempt marker: sent, no SID.
    const stored = await scoped(stack.db.manager, Message, { tenantId: tenant.tenant.id, environment: 'live' }).insert({
      channel: 'sms',
      to: newNumber(),
      body: 'Your code is 1234',
      status: 'sent',
      idempotencyKey: `twilio-status-no-sid-${Date.now()}`,
      providerAttemptedAt: new Date(),
      sentAt: new Date(),
    });
    const id = encodeId('message', stored.id);
    const sid = `SM${'a'.repeat(24)}${String(Date.now()).slice(-8)}`;
    expect(await outcomeOf(callback({ MessageSid: sid, MessageStatus: 'delivered' }, { to: `${CALLBACK_URL}?messageId=${id}` }))).toBe(
      'delivered',
    );
    expect(await message(tenant, id)).toMatchObject({ status: 'sent', providerMessageId: sid, deliveredAt: expect.any(String) });
  });

  it("counts a campaign's SMS delivered when Twilio reported it delivered, not merely because it was sent", async () => {
    const pos = (i: number) => ({ x: 0, y: i * 100 });
    const definition = {
      name: 'One SMS',
      nodes: [
        { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType: 'manual' } },
        { nodeId: 'sms-1', type: 'sms', position: pos(1), data: { message: 'Hi {{firstName}}, your order shipped' } },
        { nodeId: 'done', type: 'end', position: pos(2), data: {} },
      ],
      edges: [
        { edgeId: 'e1', source: 'start', target: 'sms-1' },
        { edgeId: 'e2', source: 'sms-1', target: 'done' },
      ],
    };
    const workflow = (await api().post('/v1/workflows').set(tenant.live).send(definition).expect(201)).body.data;
    const campaign = (
      await api()
        .post('/v1/campaigns')
        .set(tenant.live)
        .send({ name: 'SMS stats', type: 'sms', workflowId: workflow.id, status: 'active' })
        .expect(201)
    ).body.data;
    const leads = [];
    for (let i = 0; i < 3; i++)
      leads.push(
        (
          await api()
            .post('/v1/leads')
            .set(tenant.live)
            .send(validLead({ phone: newNumber() }))
            .expect(201)
        ).body.data,
      );
    await api()
      .post(`/v1/campaigns/${campaign.id}/enrollments`)
      .set(tenant.live)
      .send({ leadIds: leads.map((l) => l.id) })
      .expect(200);
    for (const lead of leads) await stack.client.workflow.getHandle(`campaign/${campaign.id}/lead/${lead.id}`).result();

    // One delivered, one undelivered (it leaves sent for failed), one Twilio has not reported on yet.
    const report = (lead: { phone: string }, fields: { MessageStatus: string; ErrorCode?: string }) => {
      const { statusCallback, sid } = twilioRequestTo(lead.phone);
      return outcomeOf(callback({ MessageSid: sid, ...fields }, { to: statusCallback }));
    };
    expect(await report(leads[0], { MessageStatus: 'delivered' })).toBe('delivered');
    expect(await report(leads[1], { MessageStatus: 'undelivered', ErrorCode: '30003' })).toBe('failed');
    const stats = (await api().get(`/v1/campaigns/${campaign.id}/stats`).set(tenant.live).expect(200)).body.data;
    expect(stats).toMatchObject({ enrolled: 3, sent: 2, delivered: 1, bounced: 0 });
    expect(stats.rates).toMatchObject({ delivery: 0.5 });
  });

  it('answers an unknown SID 200 with outcome unknown_message, so Twilio does not retry what it cannot fix', async () => {
    const res = await callback({ MessageSid: `SM${'f'.repeat(32)}`, MessageStatus: 'undelivered', ErrorCode: '30003' }).expect(200);
    expect(res.body.data).toEqual({ messageSid: `SM${'f'.repeat(32)}`, outcome: 'unknown_message' });
  });

  it('answers 404 saying what to set where Twilio is not configured', async () => {
    // This process's config has no Twilio account: the app reads none.
    const bare = createApp({ db: stack.db, workflows: stack.workflows, webhooks: { allowPrivateTargets: true } });
    try {
      const sms = await sendSms();
      const params = { MessageSid: sms.providerMessageId, MessageStatus: 'failed', AccountSid: ACCOUNT_SID };
      const res = await request(bare)
        .post('/v1/providers/twilio/status')
        .type('form')
        .set('X-Twilio-Signature', getExpectedTwilioSignature(AUTH_TOKEN, CALLBACK_URL, params))
        .send(params);
      expect([res.status, res.body.success]).toEqual([404, false]);
      expect(res.body.message).toMatch(/not set up on this service: set TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and PUBLIC_BASE_URL/);
      expect((await message(tenant, sms.id)).status).toBe('sent');
    } finally {
      await flushApp(bare);
    }
  });
});
