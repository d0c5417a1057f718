import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { threeEmails } from './support/sequences';
import { header, SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Suppression as state the API shows, at a real SMTP server, real Temporal and a real webhook
 * receiver: leads carry unsubscribedAt/bouncedAt, the list is readable and re-subscribable, running
 * enrollments end at once by signal, and a marketing send to a suppressed address is refused.
 */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let receiver: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'suppression' }));
  receiver = await new WebhookReceiver().start();
  await registerEndpoint(stack.app, tenant, receiver, '/hook', ['lead.updated']);
});
afterAll(async () => {
  await stop();
  await receiver.stop();
});

const api = () => stack.http();
const newLead = async (overrides: Record<string, unknown> = {}) =>
  (await api().post('/v1/leads').set(tenant.live).send(validLead(overrides)).expect(201)).body.data as { id: string; email: string };
const getLead = async (id: string) => (await api().get(`/v1/leads/${id}`).set(tenant.live).expect(200)).body.data;
const result = (campaignId: string, leadId: string) =>
  stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(`campaign/${campaignId}/lead/${leadId}`).result();
const leadUpdates = (leadId: string) =>
  receiver
    .for('/hook')
    .filter((w) => w.body.type === 'lead.updated' && w.body.data.leadId === leadId)
    .map((w) => w.body.data.changes);

/** email -> wait a day -> email: after the first email the enrollment sleeps for a day. */
async function enrolledAndWaiting(leadId: string): Promise<string> {
  const workflow = await api()
    .post('/v1/workflows')
    .set(tenant.live)
    .send(threeEmails({ duration: 1, durationUnit: 'days' }))
    .expect(201);
  const campaign = await api()
    .post('/v1/campaigns')
    .set(tenant.live)
    .send({ name: 'Suppression state', workflowId: workflow.body.data.id, status: 'active' })
    .expect(201);
  const id = campaign.body.data.id as string;
  await api()
    .post(`/v1/campaigns/${id}/enrollments`)
    .set(tenant.live)
    .send({ leadIds: [leadId] })
    .expect(200);
  await waitUntil(async () => {
    const list = await api().get(`/v1/campaigns/${id}/enrollments`).set(tenant.live).expect(200);
    return list.body.data[0]?.progress?.currentNodeId === 'wait-1';
  }, 'the enrollment sleeping in its one-day wait');
  return id;
}

describe('suppression is state the API shows', () => {
  it('a one-click unsubscribe marks the lead, fires lead.updated, ends its sleeping enrollment at once, and can be undone', async () => {
    const lead = await newLead();
    const campaign = await enrolledAndWaiting(lead.id);
    const [mail] = smtp.to(lead.email);
    expect(header(mail, 'List-Unsubscribe')).toMatch(/^<https:\/\/suppression\.test\/v1\/t\/u\//);

    await api().post(trackingPaths(mail, 'u')[0]).type('form').send('List-Unsubscribe=One-Click').expect(200);

    // Not at its next step a day from now: the stop signal ends it while it sleeps.
    expect(await result(campaign, lead.id)).toMatchObject({ status: 'exited', exitReason: 'unsubscribed' });
    const enrollment = (await api().get(`/v1/campaigns/${campaign}/enrollments`).set(tenant.live).expect(200)).body.data[0];
    expect(enrollment).toMatchObject({ status: 'exited', exitReason: 'unsubscribed' });
    const unsubscribedAt = (await getLead(lead.id)).unsubscribedAt;
    expect(Date.parse(unsubscribedAt)).toBeGreaterThan(Date.now() - 60_000);
    await waitUntil(async () => leadUpdates(lead.id).length > 0, 'lead.updated at the receiver');
    expect(leadUpdates(lead.id)).toEqual([{ unsubscribedAt }]);
    expect(smtp.to(lead.email)).toHaveLength(1);

    const listed = await api().get('/v1/suppressions').query({ email: lead.email.toUpperCase(), reason: 'unsubscribed' }).set(tenant.live);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ email: lead.email, reason: 'unsubscribed' })]);
    expect(listed.body.pagination).toMatchObject({ total: 1 });
    const none = await api().get('/v1/suppressions').query({ email: lead.email, reason: 'bounced' }).set(tenant.live).expect(200);
    expect(none.body.data).toEqual([]);

    // Re-subscribing is the tenant's decision: audited, and the lead is clear again.
    const suppressionId = listed.body.data[0].id;
    await api().delete(`/v1/suppressions/${suppressionId}`).set(tenant.live).expect(200);
    expect(await getLead(lead.id)).toMatchObject({ unsubscribedAt: null, bouncedAt: null });
    expect((await api().get('/v1/suppressions').query({ email: lead.email }).set(tenant.live)).body.data).toEqual([]);
    await waitUntil(async () => leadUpdates(lead.id).length > 1, 'the second lead.updated');
    expect(leadUpdates(lead.id)[1]).toEqual({ unsubscribedAt: null, bouncedAt: null });
    const audit = await api().get('/v1/audit-logs').query({ resourceType: 'suppressions' }).set(tenant.live).expect(200);
    expect(audit.body.data).toEqual([expect.objectContaining({ action: 'DELETE /v1/suppressions/:id', resourceId: suppressionId })]);
    await api().delete(`/v1/suppressions/${suppressionId}`).set(tenant.live).expect(404);
  });

  it('a hard bounce marks every lead with the address and ends their enrollments at once with exit reason bounced', async () => {
    const lead = await newLead();
    const twin = await newLead({ email: lead.email.toUpperCase() });
    const campaign = await enrolledAndWaiting(lead.id);
    const twinCampaign = await enrolledAndWaiting(twin.id);

    await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ email: lead.email }).expect(201);

    expect(await result(campaign, lead.id)).toMatchObject({ status: 'exited', exitReason: 'bounced' });
    expect(await result(twinCampaign, twin.id)).toMatchObject({ status: 'exited', exitReason: 'bounced' });
    expect((await getLead(lead.id)).bouncedAt).not.toBeNull();
    expect((await getLead(twin.id)).bouncedAt).not.toBeNull();
    await waitUntil(async () => leadUpdates(twin.id).length > 0, 'lead.updated for the other lead with the address');
    expect(leadUpdates(twin.id)[0]).toEqual({ bouncedAt: expect.any(String) });
  });

  it('a send to a bounced address is a 422 naming the suppression, transactional included; after an unsubscribe a transactional one still goes', async () => {
    const lead = await newLead();
    await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ email: lead.email }).expect(201);
    const [suppression] = (await api().get('/v1/suppressions').query({ email: lead.email }).set(tenant.live).expect(200)).body.data;
    const send = (body: Record<string, unknown>) => api().post('/v1/communications/send/email').set(tenant.live).send(body);

    const bounced = {
      field: 'to',
      message: expect.stringContaining(`bounced (suppression ${suppression.id}). No email is sent to it, transactional included`),
    };
    const refused = await send({ to: lead.email, subject: 'Spring offer', body: 'Hello', leadId: lead.id });
    expect([refused.status, refused.body.errors]).toEqual([422, [bounced]]);
    const explicit = await send({ to: lead.email, subject: 'Spring offer', body: 'Hello', category: 'marketing' });
    expect([explicit.status, explicit.body.errors]).toEqual([422, [bounced]]);
    const receiptToBounced = await send({
      to: lead.email,
      subject: 'Your receipt',
      body: 'Paid',
      leadId: lead.id,
      category: 'transactional',
    });
    expect([receiptToBounced.status, receiptToBounced.body.errors]).toEqual([422, [bounced]]);
    expect(smtp.to(lead.email)).toEqual([]);

    const optedOut = await newLead();
    await api().post('/v1/suppressions').set(tenant.live).send({ email: optedOut.email }).expect(201);
    const offer = await send({ to: optedOut.email, subject: 'Spring offer', body: 'Hello', leadId: optedOut.id });
    expect(offer.body.errors).toEqual([{ field: 'to', message: expect.stringContaining('unsubscribed (suppression') }]);
    const receipt = await send({
      to: optedOut.email,
      subject: 'Your receipt',
      body: 'Paid: 10 EUR',
      leadId: optedOut.id,
      category: 'transactional',
    }).expect(200);
    expect(receipt.body.data.status).toBe('sent');
    const [mail] = smtp.to(optedOut.email);
    expect(mail.text).toContain('Subject: Your receipt');
    expect(header(mail, 'List-Unsubscribe')).toBeUndefined();
  });

  it('refuses a marketing send for what is suppressed only: a bounce elsewhere blocks that address, an unsubscribe every address', async () => {
    const lead = await newLead();
    const other = `other-${lead.email}`;
    const send = (to: string) =>
      api().post('/v1/communications/send/email').set(tenant.live).send({ to, subject: 'News', body: 'Hello', leadId: lead.id });
    const sent = await send(other).expect(200);
    await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ messageId: sent.body.data.id }).expect(201);
    expect((await getLead(lead.id)).bouncedAt).not.toBeNull();
    const [suppression] = (await api().get('/v1/suppressions').query({ email: other }).set(tenant.live).expect(200)).body.data;
    const refused = await send(other);
    expect(refused.body.errors).toEqual([{ field: 'to', message: expect.stringContaining(`bounced (suppression ${suppression.id})`) }]);

    // The lead's own address never bounced; and the re-subscribed one can be mailed again, as the 422 says.
    await send(lead.email).expect(200);
    await api().delete(`/v1/suppressions/${suppression.id}`).set(tenant.live).expect(200);
    await send(other).expect(200);

    const [mail] = await waitUntil(async () => smtp.to(lead.email).length > 0 && smtp.to(lead.email), 'the marketing email');
    await api().post(trackingPaths(mail, 'u')[0]).type('form').send('List-Unsubscribe=One-Click').expect(200);
    const unsubscribed = await send(other);
    expect(unsubscribed.status).toBe(422);
    expect(unsubscribed.body.errors).toEqual([
      {
        field: 'leadId',
        message: expect.stringMatching(
          new RegExp(`^The lead unsubscribed on .+ \\(its address: ${lead.email}\\)\\. Marketing email is not sent`),
        ),
      },
    ]);
  });

  it("an unsubscribe through an old address suppresses the lead's current one, and re-subscribing that undoes it", async () => {
    const lead = await newLead();
    const old = lead.email;
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: old, subject: 'News', body: 'Hi', leadId: lead.id })
      .expect(200);
    const [mail] = await waitUntil(async () => smtp.to(old).length > 0 && smtp.to(old), 'the marketing email');
    const moved = `moved-${old}`;
    await api().patch(`/v1/leads/${lead.id}`).set(tenant.live).send({ email: moved }).expect(200);
    await api().post(trackingPaths(mail, 'u')[0]).type('form').send('List-Unsubscribe=One-Click').expect(200);
    const [current] = (await api().get('/v1/suppressions').query({ email: moved }).set(tenant.live).expect(200)).body.data;
    expect(current).toMatchObject({ reason: 'unsubscribed' });
    // The 422's advice works: re-subscribing the lead's address clears the lead.
    await api().delete(`/v1/suppressions/${current.id}`).set(tenant.live).expect(200);
    expect((await getLead(lead.id)).unsubscribedAt).toBeNull();
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: moved, subject: 'Back', body: 'Hi', leadId: lead.id })
      .expect(200);
  });

  it("a bounce at another address leaves the lead's own address in its campaigns", async () => {
    const lead = await newLead();
    const elsewhere = `elsewhere-${lead.email}`;
    const sent = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: elsewhere, subject: 'News', body: 'Hi', leadId: lead.id })
      .expect(200);
    await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ messageId: sent.body.data.id }).expect(201);
    expect((await getLead(lead.id)).bouncedAt).not.toBeNull();
    // Enrolled, it reaches its wait after the first email instead of exiting as bounced.
    await enrolledAndWaiting(lead.id);
    expect(smtp.to(lead.email)).toHaveLength(1);
  });

  it('suppresses an address learnt of elsewhere as an unsubscribe link would; a bounce then outranks a later opt-out', async () => {
    const lead = await newLead();
    const campaign = await enrolledAndWaiting(lead.id);
    const added = await api().post('/v1/suppressions').set(tenant.live).send({ email: lead.email.toUpperCase() }).expect(201);
    expect(added.body.data).toMatchObject({ email: lead.email, reason: 'unsubscribed' });
    expect((await getLead(lead.id)).unsubscribedAt).not.toBeNull();
    expect(await result(campaign, lead.id)).toMatchObject({ status: 'exited', exitReason: 'unsubscribed' });

    const dead = `dead-${lead.email}`;
    await api().post('/v1/suppressions').set(tenant.live).send({ email: dead, reason: 'bounced' }).expect(201);
    const again = await api().post('/v1/suppressions').set(tenant.live).send({ email: dead }).expect(201);
    expect(again.body.data.reason).toBe('bounced');
    const bad = await api().post('/v1/suppressions').set(tenant.live).send({ email: 'nope', reason: 'spam' });
    expect([bad.status, bad.body.errors.map((e: { field: string }) => e.field).sort()]).toEqual([422, ['email', 'reason']]);
  });

  it('a recipient the mail server refuses for good is a bounce: the message fails, its address is suppressed, its lead marked', async () => {
    const lead = await newLead();
    smtp.unknownMailboxes.add(lead.email.toLowerCase());
    try {
      const sent = await api()
        .post('/v1/communications/send/email')
        .set(tenant.live)
        .send({ to: lead.email, subject: 'Hi', body: 'Hello', leadId: lead.id })
        .expect(200);
      const message = await waitUntil(async () => {
        const m = (await api().get(`/v1/communications/messages/${sent.body.data.id}`).set(tenant.live)).body.data;
        return m.status !== 'queued' && m;
      }, 'the refused send');
      expect(message).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('mailbox unavailable'),
        bouncedAt: expect.any(String),
      });
      const [suppression] = (await api().get('/v1/suppressions').query({ email: lead.email }).set(tenant.live).expect(200)).body.data;
      expect(suppression).toMatchObject({ reason: 'bounced' });
      expect((await getLead(lead.id)).bouncedAt).not.toBeNull();
    } finally {
      smtp.unknownMailboxes.clear();
    }
  });

  it('a marketing send to a lead that may be emailed carries the unsubscribe link and List-Unsubscribe', async () => {
    const lead = await newLead();
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'News', body: 'Hello {{firstName}}', leadId: lead.id })
      .expect(200);
    const [mail] = await waitUntil(async () => smtp.to(lead.email).length > 0 && smtp.to(lead.email), 'the marketing email');
    expect(header(mail, 'List-Unsubscribe')).toMatch(/^<https:\/\/suppression\.test\/v1\/t\/u\//);
  });
});
