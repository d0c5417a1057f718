import { EmailSuppression } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/** Suppression by address, proven at a real SMTP server: what one lead record opted out of, no other lead with the address gets. */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let receiver: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'email-suppression' }));
  receiver = await new WebhookReceiver().start();
  await registerEndpoint(stack.app, tenant, receiver, '/hook', ['email.failed']);
});
afterAll(async () => {
  await stop();
  await receiver.stop();
});

const api = () => stack.http();
const pos = { x: 0, y: 0 };

/** trigger -> [wait] -> email -> end, as an active campaign. */
async function emailCampaign(waitSeconds = 0): Promise<string> {
  const wait = waitSeconds
    ? [{ nodeId: 'wait', type: 'wait', position: pos, data: { duration: waitSeconds / 60, durationUnit: 'minutes' } }]
    : [];
  const path = ['start', ...wait.map((n) => n.nodeId), 'mail', 'done'];
  const workflow = await api()
    .post('/v1/workflows')
    .set(tenant.live)
    .send({
      name: 'One email',
      nodes: [
        { nodeId: 'start', type: 'trigger', position: pos, data: { triggerType: 'manual' } },
        ...wait,
        { nodeId: 'mail', type: 'email', position: pos, data: { subjectLine: 'News', body: 'Hello {{firstName}}' } },
        { nodeId: 'done', type: 'end', position: pos, data: {} },
      ],
      edges: path.slice(1).map((target, i) => ({ edgeId: `e${i}`, source: path[i], target })),
    })
    .expect(201);
  const campaign = await api()
    .post('/v1/campaigns')
    .set(tenant.live)
    .send({ name: 'Suppression', workflowId: workflow.body.data.id, status: 'active' })
    .expect(201);
  return campaign.body.data.id;
}

const newLead = async (overrides: Record<string, unknown>) =>
  (await api().post('/v1/leads').set(tenant.live).send(validLead(overrides)).expect(201)).body.data as { id: string; email: string };
const enroll = async (campaignId: string, leadId: string) =>
  (
    await api()
      .post(`/v1/campaigns/${campaignId}/enrollments`)
      .set(tenant.live)
      .send({ leadIds: [leadId] })
      .expect(200)
  ).body.data[0].status;
const result = (campaignId: string, leadId: string) =>
  stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(`campaign/${campaignId}/lead/${leadId}`).result();
const suppressionOf = (address: string) =>
  scoped(stack.db.manager, EmailSuppression, { tenantId: tenant.tenant.id, environment: 'live' }).findOne({ address });

describe('email suppression by address', () => {
  it('after a one-click unsubscribe, no lead with that address is emailed by a campaign, new or already enrolled', async () => {
    const address = `optout-${Date.now()}@example.com`;
    const first = await newLead({ email: address });
    const waiting = await newLead({ email: address.toUpperCase() });
    const later = await emailCampaign(3);
    expect(await enroll(later, waiting.id)).toBe('enrolled');

    const campaign = await emailCampaign();
    expect(await enroll(campaign, first.id)).toBe('enrolled');
    const [mail] = await waitUntil(async () => smtp.to(address).length > 0 && smtp.to(address), 'the first email');
    await api().post(trackingPaths(mail, 'u')[0]).type('form').send('List-Unsubscribe=One-Click').expect(200);
    expect(await suppressionOf(address)).toMatchObject({ reason: 'unsubscribed' });

    // A lead with the same address created after the unsubscribe, and one enrolled before it.
    const duplicate = await newLead({ email: ` ${address.replace('optout', 'OptOut')}` });
    expect(await enroll(await emailCampaign(), duplicate.id)).toBe('unsubscribed');
    expect(await result(later, waiting.id)).toMatchObject({ status: 'exited', exitReason: 'unsubscribed' });
    expect(smtp.received.filter((m) => m.to.some((to) => to.toLowerCase() === address))).toHaveLength(1);
  });

  it('fails a queued marketing email unsent when its address unsubscribes before the next attempt', async () => {
    const address = `queued-${Date.now()}@example.com`;
    const lead = await newLead({ email: address });
    let open = false; // the server refuses the address for now, as one having an outage would
    smtp.beforeAccept = async (mail) => {
      if (!open && mail.to.includes(address)) throw Object.assign(new Error('Try again later'), { responseCode: 451 });
    };
    try {
      const sent = await api()
        .post('/v1/communications/send/email')
        .set(tenant.live)
        .send({ to: address, subject: 'Promo', body: 'Buy now', leadId: lead.id })
        .expect(200);
      const [refused] = await waitUntil(async () => smtp.to(address).length > 0 && smtp.to(address), 'the refused attempt');
      await api().post(trackingPaths(refused, 'u')[0]).type('form').send('List-Unsubscribe=One-Click').expect(200);
      open = true;
      const message = await waitUntil(async () => {
        const m = (await api().get(`/v1/communications/messages/${sent.body.data.id}`).set(tenant.live)).body.data;
        return m.status !== 'queued' && m;
      }, 'the next attempt');
      expect(message).toMatchObject({ status: 'failed', error: 'Not sent: the address unsubscribed after the email was queued' });
      // The integration is told the email will never go, and why.
      const [failed] = await waitUntil(async () => {
        const hooks = receiver.for('/hook').filter((w) => w.body.type === 'email.failed' && w.body.data.messageId === sent.body.data.id);
        return hooks.length > 0 && hooks;
      }, 'email.failed at the receiver');
      expect(failed.body.data).toEqual({
        messageId: sent.body.data.id,
        to: address,
        leadId: lead.id,
        campaignId: null,
        reason: 'Not sent: the address unsubscribed after the email was queued',
        failedAt: expect.any(String),
      });
    } finally {
      smtp.beforeAccept = () => {};
    }
  });

  it('fails a queued transactional email unsent when its address bounces before the next attempt, and one whose address unsubscribed goes', async () => {
    const [bouncing, optedOut] = [`tx-bounce-${Date.now()}@example.com`, `tx-optout-${Date.now()}@example.com`];
    let open = false; // the server refuses both addresses for now, as one having an outage would
    smtp.beforeAccept = async (mail) => {
      if (!open && mail.to.some((to) => to === bouncing || to === optedOut))
        throw Object.assign(new Error('Try again later'), { responseCode: 451 });
    };
    try {
      const send = (to: string) =>
        api()
          .post('/v1/communications/send/email')
          .set(tenant.live)
          .send({ to, subject: 'Your receipt', body: 'Paid', category: 'transactional' })
          .expect(200);
      const [toBouncing, toOptedOut] = [await send(bouncing), await send(optedOut)];
      await waitUntil(async () => smtp.to(bouncing).length > 0 && smtp.to(optedOut).length > 0, 'the refused attempts');
      await api().post('/v1/suppressions').set(tenant.live).send({ email: bouncing, reason: 'bounced' }).expect(201);
      await api().post('/v1/suppressions').set(tenant.live).send({ email: optedOut }).expect(201);
      open = true;
      const settled = (id: string) =>
        waitUntil(async () => {
          const m = (await api().get(`/v1/communications/messages/${id}`).set(tenant.live)).body.data;
          return m.status !== 'queued' && m;
        }, 'the next attempt');
      expect(await settled(toBouncing.body.data.id)).toMatchObject({
        status: 'failed',
        error: 'Not sent: the address bounced after the email was queued',
      });
      expect(await settled(toOptedOut.body.data.id)).toMatchObject({ status: 'sent' });
    } finally {
      smtp.beforeAccept = () => {};
    }
  });

  it('after a bounce, other leads with the address leave their sequence unsent, and a merge keeps the stricter state', async () => {
    const address = `bounce-${Date.now()}@example.com`;
    const bounced = await newLead({ email: address, phone: '+44 20 7946 0101' });
    await api().post('/v1/communications/inbound/bounce').set(tenant.live).send({ email: address }).expect(201);
    expect(await suppressionOf(address)).toMatchObject({ reason: 'bounced' });

    const campaign = await emailCampaign();
    const duplicate = await newLead({ email: address });
    await enroll(campaign, duplicate.id);
    expect(await result(campaign, duplicate.id)).toMatchObject({ status: 'exited', exitReason: 'bounced' });

    // The bounced lead merged into a lead with another address: the survivor is bounced and its address suppressed.
    const survivorAddress = `survivor-${Date.now()}@example.com`;
    const survivor = await newLead({ email: survivorAddress, phone: '+44 20 7946 0101' });
    await api().post(`/v1/leads/${survivor.id}/merge`).set(tenant.live).send({ duplicateId: bounced.id }).expect(200);
    expect(await suppressionOf(survivorAddress)).toMatchObject({ reason: 'bounced' });
    await enroll(campaign, survivor.id);
    expect(await result(campaign, survivor.id)).toMatchObject({ status: 'exited', exitReason: 'bounced' });

    expect(smtp.to(address)).toHaveLength(0);
    expect(smtp.to(survivorAddress)).toHaveLength(0);
  });
});
