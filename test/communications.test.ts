import type { AppDeps } from '../api/http/domain-context';
import { EngagementEvent, Lead } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { decodeId } from '../lib/ids';
import { FakeTwilio } from './support/fake-twilio';
import { header, SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { outboxOf } from './support/events';
import { validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/** Communications through the real worker: nodemailer to a real SMTP server, the real twilio client to a local stand-in. */
const TWILIO_ACCOUNT = { accountSid: 'AC00000000000000000000000000000001', authToken: 'token' };

let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let twilio: FakeTwilio;
let receiver: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  twilio = await new FakeTwilio(TWILIO_ACCOUNT).start();
  ({ stack, tenant, smtp, stop } = await startMailStack({
    name: 'comms',
    emailFrom: 'Sales <sales@example.test>',
    messaging: {
      twilio: { ...TWILIO_ACCOUNT, from: '+15550001111', apiBaseUrl: twilio.url },
    },
  }));
  receiver = await new WebhookReceiver().start();
  await registerEndpoint(stack.app, tenant, receiver, '/hook', ['email.replied', 'sms.failed']);
});
afterAll(async () => {
  await stop();
  await twilio.stop();
  await receiver.stop();
});

const api = () => stack.http();
const received = (type: string, messageId: string) =>
  receiver.for('/hook').filter((w) => w.body.type === type && w.body.data.messageId === messageId);

describe('communications', () => {
  it('sends a transactional email to a lead with tracked links and an open pixel and no unsubscribe, answering {id, to, status, createdAt}', async () => {
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
    const res = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({
        to: lead.email,
        subject: 'Your quote',
        body: 'Hello {{firstName}}, see https://example.com/quote',
        leadId: lead.id,
        category: 'transactional',
      })
      .expect(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['createdAt', 'id', 'status', 'to']);
    expect(res.body.data).toMatchObject({ to: lead.email, status: 'sent' });
    const [mail] = smtp.to(lead.email);
    expect(mail.text).toContain('Hello Ada');
    expect(trackingPaths(mail, 'o')).toHaveLength(1);
    expect(trackingPaths(mail, 'c')).toHaveLength(1);
    expect(header(mail, 'List-Unsubscribe')).toBeUndefined();
    const click = await api().get(trackingPaths(mail, 'c')[0]).expect(302);
    expect(click.headers.location).toBe('https://example.com/quote');

    // Hits are answered at once and recorded together; 20 opens of one token from one address
    // within a minute are replays and become a single row (docs/security.md).
    const opens = await Promise.all(Array.from({ length: 20 }, () => api().get(trackingPaths(mail, 'o')[0])));
    expect(opens.map((o) => o.status)).toEqual(Array(20).fill(200));
    await (stack.app.locals.deps as AppDeps).trackingHits.flush();
    const events = await scoped(stack.db.manager, EngagementEvent, { tenantId: tenant.tenant.id, environment: 'live' }).find({
      where: { messageId: decodeId('message', res.body.data.id) as string },
    });
    expect(events.filter((e) => e.type === 'email_open')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'link_click').map((e) => e.details.url)).toEqual(['https://example.com/quote']);

    const one = await api().get(`/v1/communications/messages/${res.body.data.id}`).set(tenant.live).expect(200);
    expect(one.body.data).toMatchObject({ channel: 'email', status: 'sent', sandbox: false, leadId: lead.id });
    expect(one.body.data.providerMessageId).toMatch(/^<msg[A-Za-z0-9]+@example\.test>$/);
  });

  it('renders templates with HTML escaping of the data', async () => {
    const template = await api()
      .post('/v1/communications/templates')
      .set(tenant.live)
      .send({ name: 'Greeting', subject: 'Hi {{name}}', body: '<p>Hello {{name}}, {{missing}}welcome.</p>' })
      .expect(201);
    await api()
      .patch(`/v1/communications/templates/${template.body.data.id}`)
      .set(tenant.live)
      .send({ subject: 'Hey {{name}}' })
      .expect(200);
    const to = `tpl-${Date.now()}@example.com`;
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, subject: 'Hey {{name}}', templateId: template.body.data.id, templateData: { name: '<b>Bob</b>' } })
      .expect(200);
    const [mail] = smtp.to(to);
    expect(mail.text).toContain('<p>Hello &lt;b&gt;Bob&lt;/b&gt;, welcome.</p>');
    expect(header(mail, 'Subject')).toBe('Hey <b>Bob</b>');
    const both = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, subject: 'x', body: 'y', templateId: template.body.data.id });
    expect(both.status).toBe(422);
  });

  it("uses a template's own subject, rendered like its body, when the send gives none; a subject given still wins", async () => {
    const template = await api()
      .post('/v1/communications/templates')
      .set(tenant.live)
      .send({ name: 'Renewal', subject: 'Your renewal, {{name}}', body: '<p>Hello {{name}}</p>' })
      .expect(201);
    const to = `tpl-subject-${Date.now()}@example.com`;
    const sent = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, templateId: template.body.data.id, templateData: { name: 'Bob & Co' } });
    expect(sent.status).toBe(200);
    expect(header(smtp.to(to)[0], 'Subject')).toBe('Your renewal, Bob & Co');
    const stored = await api().get(`/v1/communications/messages/${sent.body.data.id}`).set(tenant.live).expect(200);
    expect(stored.body.data.subject).toBe('Your renewal, Bob & Co');
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, subject: 'Overridden for {{name}}', templateId: template.body.data.id, templateData: { name: 'Ann' } })
      .expect(200);
    expect(header(smtp.to(to)[1], 'Subject')).toBe('Overridden for Ann');
    // A template's subject that grows too long is the template data's doing, as its body is.
    const long = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to, templateId: template.body.data.id, templateData: { name: 'x'.repeat(400) } });
    expect([long.status, long.body.errors?.[0]?.field]).toEqual([422, 'templateData']);
    // Without a template nothing else supplies one.
    const none = await api().post('/v1/communications/send/email').set(tenant.live).send({ to, body: 'Hi' });
    expect([none.status, none.body.errors]).toEqual([
      422,
      [{ field: 'subject', message: 'Required; give a subject, or a templateId (its template has one)' }],
    ]);
  });

  it('captures sandbox email without delivering it', async () => {
    const to = `sandbox-${Date.now()}@example.com`;
    const res = await api()
      .post('/v1/communications/send/email')
      .set(tenant.sandbox)
      .send({ to, subject: 'Test', body: 'Only a test' })
      .expect(200);
    expect(res.body.data.status).toBe('sent');
    const stored = await api().get(`/v1/communications/messages/${res.body.data.id}`).set(tenant.sandbox).expect(200);
    expect(stored.body.data).toMatchObject({ sandbox: true, status: 'sent' });
    expect(smtp.to(to)).toHaveLength(0);
  });

  it("links a message to a deal of the caller's, and refuses another's", async () => {
    const deal = (await api().post('/v1/opportunities').set(tenant.sandbox).send({ name: 'Deal', value: 1 }).expect(201)).body.data;
    const liveDeal = (await api().post('/v1/opportunities').set(tenant.live).send({ name: 'Live deal', value: 1 }).expect(201)).body.data;
    const send = (opportunityId: string) =>
      api()
        .post('/v1/communications/send/email')
        .set(tenant.sandbox)
        .send({ to: 'deal@example.com', subject: 'Quote', body: 'Attached', opportunityId });
    const sent = await send(deal.id).expect(200);
    expect((await api().get(`/v1/communications/messages/${sent.body.data.id}`).set(tenant.sandbox)).body.data.opportunityId).toBe(deal.id);
    const refused = await send(liveDeal.id);
    expect([refused.status, refused.body.errors]).toEqual([422, [{ field: 'opportunityId', message: 'Opportunity not found' }]]);
  });

  it('sends SMS through the twilio client to the configured API base URL', async () => {
    const res = await api()
      .post('/v1/communications/send/sms')
      .set(tenant.live)
      .send({ to: '+447700900123', body: 'Your code is 1234' })
      .expect(200);
    expect(res.body.data.status).toBe('sent');
    const req = twilio.requests.at(-1)!;
    expect(req.path).toBe('/2010-04-01/Accounts/AC00000000000000000000000000000001/Messages.json');
    expect([req.form.get('To'), req.form.get('From'), req.form.get('Body')]).toEqual([
      '+447700900123',
      '+15550001111',
      'Your code is 1234',
    ]);
    expect(req.authorization).toMatch(/^Basic /);
    const list = await api().get('/v1/communications/messages?channel=sms').set(tenant.live).expect(200);
    expect(list.body.data[0]).toMatchObject({ id: res.body.data.id, providerMessageId: expect.stringMatching(/^SM/) });
  });

  it('fails an SMS that Twilio refuses and sends sms.failed once, with the reason', async () => {
    const lead = (
      await api()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ phone: '+447700900999' }))
        .expect(201)
    ).body.data;
    twilio.invalidNumbers.add('+447700900999');
    try {
      const res = await api()
        .post('/v1/communications/send/sms')
        .set(tenant.live)
        .send({ to: '+447700900999', body: 'Your code is 5678', leadId: lead.id })
        .expect(200);
      const messageId = res.body.data.id as string;
      const stored = await waitUntil(async () => {
        const m = (await api().get(`/v1/communications/messages/${messageId}`).set(tenant.live).expect(200)).body.data;
        return m.status !== 'queued' && m;
      }, 'the refused SMS');
      expect(stored).toMatchObject({ status: 'failed', error: expect.stringContaining('is not a valid phone number') });
      await waitUntil(async () => received('sms.failed', messageId).length > 0, 'sms.failed at the receiver');
      const [failed] = received('sms.failed', messageId);
      expect(failed.body.data).toEqual({
        messageId,
        to: '+447700900999',
        leadId: lead.id,
        campaignId: null,
        reason: stored.error,
        failedAt: expect.any(String),
      });
      expect(failed.serviceVerifiedWith).toEqual(receiver.secrets);
      // Once per message, even when Temporal retries the failing activity: test/message-delivery.workflow.test.ts.
      const events = await outboxOf(stack.db, tenant, 'live', ['sms.failed']);
      expect(events.filter((e) => e.data.messageId === messageId)).toHaveLength(1);
    } finally {
      twilio.invalidNumbers.clear();
    }
  });

  it('records inbound replies and bounces; a bounce marks the lead bounced', async () => {
    const lead = (await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
    const sent = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'Hi', body: 'Hello', leadId: lead.id });
    const reply = await api()
      .post('/v1/communications/inbound/reply')
      .set(tenant.live)
      .send({ messageId: sent.body.data.id, timestamp: '2026-01-15T10:00:00Z' })
      .expect(201);
    expect(reply.body.data).toMatchObject({ type: 'email_reply', leadId: lead.id, messageId: sent.body.data.id });
    // The integration hears of the reply, stamped with when it happened.
    await waitUntil(async () => received('email.replied', sent.body.data.id).length > 0, 'email.replied at the receiver');
    expect(received('email.replied', sent.body.data.id).map((w) => w.body.data)).toEqual([
      { messageId: sent.body.data.id, leadId: lead.id, campaignId: null, occurredAt: '2026-01-15T10:00:00.000Z' },
    ]);
    const bounce = await api()
      .post('/v1/communications/inbound/bounce')
      .set(tenant.live)
      .send({ email: lead.email, reason: '550 mailbox unavailable' })
      .expect(201);
    expect(bounce.body.data.type).toBe('email_bounce');
    // The message shows what its provider reported.
    const shown = (await api().get(`/v1/communications/messages/${sent.body.data.id}`).set(tenant.live)).body.data;
    expect(shown).toMatchObject({ repliedAt: expect.any(String), bouncedAt: expect.any(String), deliveredAt: null });
    const scope = { tenantId: decodeId('tenant', tenant.id) as string, environment: 'live' as const };
    expect((await scoped(stack.db.manager, Lead, scope).findById(decodeId('lead', lead.id) as string))?.bouncedAt).toBeInstanceOf(Date);
    await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ email: 'nobody@example.com' }).expect(422);
  });

  it('refuses a blank body, an address past 254 characters, and a rendering that would outgrow its field', async () => {
    const send = (body: object) =>
      api()
        .post('/v1/communications/send/email')
        .set(tenant.live)
        .send({ to: 'limits@example.com', subject: 'S', ...body });
    expect((await send({ body: ' \n ' })).body.errors).toEqual([{ field: 'body', message: 'Must not be blank' }]);
    const long = await send({ to: `${'a'.repeat(64)}@${'b'.repeat(250)}.com`, body: 'Hi' });
    expect([long.status, long.body.errors[0].field]).toEqual([422, 'to']);
    // 15 KB of request that would render into 10 MB of stored, sent and listed email.
    const amplified = await send({ body: '{{a}}'.repeat(2000), templateData: { a: 'x'.repeat(5000) } });
    expect([amplified.status, amplified.body.errors]).toEqual([
      422,
      [
        {
          field: 'body',
          message: 'The rendered text would exceed 1,000,000 characters once its placeholders are filled; shorten it or the values it uses',
        },
      ],
    ]);
    const subject = await send({ subject: 'Re: {{a}}', body: 'Hi', templateData: { a: 'x'.repeat(300) } });
    expect([subject.status, subject.body.errors[0].field]).toEqual([422, 'subject']);
  });

  it("matches an inbound notice's address case-insensitively, refuses one about an SMS, and takes a future time as now", async () => {
    const lead = (
      await api()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ email: `Frank.${Date.now()}@Example.com` }))
        .expect(201)
    ).body.data;
    const sent = await api().post('/v1/communications/send/email').set(tenant.live).send({ to: lead.email, subject: 'Hi', body: 'Hello' });
    const delivered = await api()
      .post('/v1/communications/inbound/delivered')
      .set(tenant.live)
      .send({ email: lead.email.toLowerCase() })
      .expect(201);
    expect(delivered.body.data).toMatchObject({ messageId: sent.body.data.id, leadId: lead.id });

    const sms = await api().post('/v1/communications/send/sms').set(tenant.live).send({ to: '+447700900124', body: 'Code 1' }).expect(200);
    const onSms = await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ messageId: sms.body.data.id });
    expect([onSms.status, onSms.body.errors]).toEqual([
      422,
      [{ field: 'messageId', message: 'Names an SMS; reply, bounce and delivery notices are for emails' }],
    ]);
    const future = await api()
      .post('/v1/communications/inbound/reply')
      .set(tenant.live)
      .send({ messageId: sent.body.data.id, timestamp: '2099-01-01T00:00:00Z' })
      .expect(201);
    expect(Date.parse(future.body.data.timestamp)).toBeLessThanOrEqual(Date.now());
  });
});
