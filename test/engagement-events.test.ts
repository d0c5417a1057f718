import type { AppDeps } from '../api/http/domain-context';
import { encodeId } from '../lib/ids';
import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { outboxOf } from './support/events';
import { oneEmail } from './support/sequences';
import { clickTargets, SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Engagement events for integrations (docs/decisions.md, "Tracking and engagement events"), through the outbox to a real webhook
 * receiver, from a campaign run by real Temporal and mailed to a real SMTP server: enrollment
 * start and end, the send, a person's open and click, and an unsubscribe each arrive as their
 * event; a machine's hit is recorded but never sent.
 */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let receiver: WebhookReceiver;
let stop: () => Promise<void>;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const EVENTS = [
  'email.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.unsubscribed',
  'email.replied',
  'email.failed',
  'sms.sent',
  'campaign.enrollment.started',
  'campaign.enrollment.completed',
];

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'engagement-events' }));
  receiver = await new WebhookReceiver().start();
  await registerEndpoint(stack.app, tenant, receiver, '/hook', EVENTS);
});
afterAll(async () => {
  await stop();
  await receiver.stop();
});

const api = () => stack.http();
const flush = () => (stack.app.locals.deps as AppDeps).trackingHits.flush();
const received = (type: string, leadId: string) =>
  receiver.for('/hook').filter((w) => w.body.type === type && w.body.data.leadId === leadId);
async function eventually(type: string, leadId: string) {
  await waitUntil(async () => received(type, leadId).length > 0, `${type} at the receiver`);
  return received(type, leadId);
}

/** A new live lead and the transactional email sent to it. */
async function receiptToNewLead() {
  const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as { id: string; email: string };
  const sent = await api()
    .post('/v1/communications/send/email')
    .set(tenant.live)
    .send({ to: lead.email, subject: 'Receipt', body: 'Thanks', leadId: lead.id, category: 'transactional' })
    .expect(200);
  return { lead, messageId: sent.body.data.id as string };
}

const PRICING_EMAIL = oneEmail({
  subjectLine: 'Hello {{firstName}}',
  body: 'Hi {{firstName}},\n\nSee https://example.com/pricing for details.',
});

describe('engagement events for integrations', () => {
  it('a campaign email to a lead: enrollment started, email.sent, enrollment completed; a person opens and clicks; a machine hit is silent; an unsubscribe is sent', async () => {
    // Hits right after sending would be classed as prefetches: this test decides who is a machine by user agent.
    await api().patch('/v1/analytics/settings').set(tenant.live).send({ prefetchWindowSeconds: 0 }).expect(200);
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as { id: string; email: string };
    const workflow = await api().post('/v1/workflows').set(tenant.live).send(PRICING_EMAIL).expect(201);
    const campaign = (
      await api()
        .post('/v1/campaigns')
        .set(tenant.live)
        .send({ name: 'Events', workflowId: workflow.body.data.id, status: 'active' })
        .expect(201)
    ).body.data.id as string;
    await api()
      .post(`/v1/campaigns/${campaign}/enrollments`)
      .set(tenant.live)
      .send({ leadIds: [lead.id] })
      .expect(200);
    const handle = stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(`campaign/${campaign}/lead/${lead.id}`);
    expect(await handle.result()).toMatchObject({ status: 'completed', exitReason: null });

    const [started] = await eventually('campaign.enrollment.started', lead.id);
    expect(started.body.data).toEqual({ enrollmentId: expect.stringMatching(/^enr/), campaignId: campaign, leadId: lead.id });
    const [sent] = await eventually('email.sent', lead.id);
    const messageId = sent.body.data.messageId as string;
    expect(sent.body.data).toEqual({
      messageId: expect.stringMatching(/^msg/),
      to: lead.email,
      leadId: lead.id,
      campaignId: campaign,
      sentAt: expect.any(String),
      sandbox: false,
    });
    const [completed] = await eventually('campaign.enrollment.completed', lead.id);
    expect(completed.body.data).toEqual({ ...started.body.data, status: 'completed', exitReason: null });
    for (const w of [started, sent, completed]) expect(w.serviceVerifiedWith).toEqual(receiver.secrets);

    const [mail] = smtp.to(lead.email);
    const [open] = trackingPaths(mail, 'o');
    const [click] = trackingPaths(mail, 'c');
    // A machine first: recorded (listed with machine=true), never sent as an event.
    await api().get(open).set('User-Agent', 'curl/8.5.0').expect(200);
    await api().get(click).set('User-Agent', 'curl/8.5.0').expect(302);
    await flush();
    const machine = (await api().get('/v1/analytics/events').query({ messageId, machine: 'true' }).set(tenant.live).expect(200)).body.data;
    expect(machine.map((e: { type: string }) => e.type).sort()).toEqual(['email_open', 'link_click']);

    await api().get(open).set('User-Agent', BROWSER).expect(200);
    await api().get(click).set('User-Agent', BROWSER).expect(302);
    await flush();
    const [opened] = await eventually('email.opened', lead.id);
    expect(opened.body.data).toEqual({ messageId, leadId: lead.id, campaignId: campaign, occurredAt: expect.any(String) });
    const [clicked] = await eventually('email.clicked', lead.id);
    expect(clicked.body.data).toEqual({ ...opened.body.data, occurredAt: expect.any(String), url: clickTargets(mail)[0] });

    await api().post(trackingPaths(mail, 'u')[0]).type('form').send('List-Unsubscribe=One-Click').expect(200);
    const [unsubscribed] = await eventually('email.unsubscribed', lead.id);
    expect(unsubscribed.body.data).toEqual({ messageId, leadId: lead.id, campaignId: campaign, occurredAt: expect.any(String) });

    // Everything above has arrived; the machine's open and click never will (they committed before the person's).
    expect(received('email.opened', lead.id)).toHaveLength(1);
    expect(received('email.clicked', lead.id)).toHaveLength(1);
    expect(received('email.sent', lead.id)).toHaveLength(1);
  });

  it('a delivery notification and a bounce from the provider become email.delivered and email.bounced', async () => {
    const { lead, messageId } = await receiptToNewLead();
    await api().post('/v1/communications/inbound/delivered').set(tenant.live).send({ messageId }).expect(201);
    const [delivered] = await eventually('email.delivered', lead.id);
    expect(delivered.body.data).toEqual({ messageId, leadId: lead.id, campaignId: null, occurredAt: expect.any(String) });
    await api()
      .post('/v1/communications/inbound/bounce')
      .set(tenant.live)
      .send({ messageId, reason: '550 5.1.1 no such user' })
      .expect(201);
    const [bounced] = await eventually('email.bounced', lead.id);
    expect(bounced.body.data).toMatchObject({ messageId, leadId: lead.id, reason: '550 5.1.1 no such user' });
    expect((await eventually('email.sent', lead.id))[0].body.data).toMatchObject({ messageId, campaignId: null });
  });

  it('an event naming a lead of another scope writes nothing: no event, no email.opened; a bad message and lead are both reported', async () => {
    const { lead, messageId } = await receiptToNewLead();
    const elsewhere = (await api().post('/v1/leads').set(tenant.sandbox).send(validLead()).expect(201)).body.data as { id: string };
    const opened = async () => (await outboxOf(stack.db, tenant, 'live', ['email.opened'])).filter((e) => e.data.messageId === messageId);

    const refused = await api()
      .post('/v1/analytics/events')
      .set(tenant.live)
      .send({ eventType: 'email_open', messageId, leadId: elsewhere.id });
    expect([refused.status, refused.body.errors]).toEqual([422, [{ field: 'leadId', message: 'Lead not found' }]]);
    const both = await api()
      .post('/v1/analytics/events')
      .set(tenant.live)
      .send({ eventType: 'email_open', messageId: encodeId('message', '999999999'), leadId: elsewhere.id });
    expect(both.status).toBe(422);
    expect(both.body.errors.map((e: { field: string }) => e.field)).toEqual(['messageId', 'leadId']);
    const listed = await api().get(`/v1/analytics/events?messageId=${messageId}`).set(tenant.live).expect(200);
    expect(listed.body.data.filter((e: { type: string }) => e.type === 'email_open')).toEqual([]);
    expect(await opened()).toEqual([]);

    // The same event naming the message's own lead is written, with its webhook.
    await api().post('/v1/analytics/events').set(tenant.live).send({ eventType: 'email_open', messageId, leadId: lead.id }).expect(201);
    expect(await opened()).toHaveLength(1);
  });

  it('an email the mail server refuses becomes email.failed with the reason, once; a recipient it refuses is email.bounced alone', async () => {
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as { id: string; email: string };
    smtp.beforeAccept = async (mail) => {
      if (mail.to.includes(lead.email)) throw Object.assign(new Error('5.7.1 Message rejected as spam'), { responseCode: 554 });
    };
    const failedMessage = async (id: string) =>
      waitUntil(async () => {
        const m = (await api().get(`/v1/communications/messages/${id}`).set(tenant.live)).body.data;
        return m.status !== 'queued' && m;
      }, `message ${id} settled`);
    const sendOffer = async (to: { id: string; email: string }) =>
      (
        await api()
          .post('/v1/communications/send/email')
          .set(tenant.live)
          .send({ to: to.email, subject: 'Offer', body: 'Buy now', leadId: to.id })
          .expect(200)
      ).body.data.id as string;
    try {
      const messageId = await sendOffer(lead);
      const message = await failedMessage(messageId);
      expect(message).toMatchObject({ status: 'failed', error: expect.stringContaining('Message rejected as spam') });
      const [failed] = await eventually('email.failed', lead.id);
      expect(failed.body.data).toEqual({
        messageId,
        to: lead.email,
        leadId: lead.id,
        campaignId: null,
        reason: message.error,
        failedAt: expect.any(String),
      });
      expect(failed.serviceVerifiedWith).toEqual(receiver.secrets);
      const outbox = await outboxOf(stack.db, tenant, 'live', ['email.failed']);
      expect(outbox.filter((e) => e.data.messageId === messageId)).toHaveLength(1);
    } finally {
      smtp.beforeAccept = () => {};
    }

    // A dead mailbox is a hard bounce: email.bounced says so, and the failed message sends no email.failed besides.
    const dead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as { id: string; email: string };
    smtp.unknownMailboxes.add(dead.email.toLowerCase());
    try {
      const messageId = await sendOffer(dead);
      expect(await failedMessage(messageId)).toMatchObject({ status: 'failed', error: expect.stringContaining('mailbox unavailable') });
      const [bounced] = await eventually('email.bounced', dead.id);
      expect(bounced.body.data).toMatchObject({ messageId, reason: expect.stringContaining('mailbox unavailable') });
      // The failure and its event commit together: once the message shows failed, an email.failed would be in the outbox.
      const outbox = await outboxOf(stack.db, tenant, 'live', ['email.failed']);
      expect(outbox.filter((e) => e.data.messageId === messageId)).toEqual([]);
    } finally {
      smtp.unknownMailboxes.clear();
    }
  });

  it('an SMS becomes sms.sent', async () => {
    const lead = (
      await api()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ phone: '+442079460018' }))
        .expect(201)
    ).body.data as {
      id: string;
      phone: string;
    };
    const sent = await api()
      .post('/v1/communications/send/sms')
      .set(tenant.live)
      .send({ to: '+442079460018', body: 'Hi', leadId: lead.id })
      .expect(200);
    const [sms] = await eventually('sms.sent', lead.id);
    // No Twilio configured here: the capture transport records it, and the event says so.
    expect(sms.body.data).toMatchObject({ messageId: sent.body.data.id, to: '+442079460018', leadId: lead.id, sandbox: true });
  });
});
